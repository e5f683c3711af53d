// The dashboard's frame: a skip link, the header with the business, the test/live switch and
// sign-out, the navigation (Balances and Payouts keep their places), and the router's screens.
// Signed out, every screen but the sign-in link's and the sign-in's becomes the sign-in.
import { h, Fragment, type ComponentChildren } from 'preact';
import { useEffect } from 'preact/hooks';
import { lazy, LocationProvider, Router, useLocation } from 'preact-iso';
import { mode, session, signOut, stepUpPrompt } from './api.ts';
import { SignIn } from './screens/SignIn.tsx';

// Each screen is its own chunk, fetched the first time the router draws it (the sign-in comes
// with the frame): the first load carries the frame, the sign-in and what every screen shares.
const Home = lazy(() => import('./screens/Home.tsx').then((m) => m.Home));
const Payments = lazy(() => import('./screens/Payments.tsx').then((m) => m.Payments));
const Payment = lazy(() => import('./screens/Payment.tsx').then((m) => m.Payment));
const Products = lazy(() => import('./screens/Products.tsx').then((m) => m.Products));
const Links = lazy(() => import('./screens/Links.tsx').then((m) => m.Links));
const Balances = lazy(() => import('./screens/Balances.tsx').then((m) => m.Balances));
const Developers = lazy(() => import('./screens/Developers.tsx').then((m) => m.Developers));
const Events = lazy(() => import('./screens/Events.tsx').then((m) => m.Events));
const Settings = lazy(() => import('./screens/Settings.tsx').then((m) => m.Settings));
const Later = lazy(() => import('./screens/Later.tsx').then((m) => m.Later));
const Security = lazy(() => import('./screens/Security.tsx').then((m) => m.Security));
const Welcome = lazy(() => import('./screens/Welcome.tsx').then((m) => m.Welcome));

stepUpPrompt.ask = () => import('./step-up.tsx').then((m) => m.stepUp());

const NAV: Array<[string, string]> = [
  ['/dashboard', 'Home'],
  ['/dashboard/payments', 'Payments'],
  ['/dashboard/products', 'Products'],
  ['/dashboard/links', 'Links'],
  ['/dashboard/balances', 'Balances'],
  ['/dashboard/payouts', 'Payouts'],
  ['/dashboard/developers', 'Developers'],
  ['/dashboard/events', 'Events'],
  ['/dashboard/settings', 'Settings'],
  ['/dashboard/security', 'Security'],
];

function Nav() {
  const { path } = useLocation();
  const current = (href: string) => (href === '/dashboard' ? path === '/dashboard' || path === '/dashboard/' : path.startsWith(href));
  return (
    <nav aria-label="Dashboard">
      <ul>
        {NAV.map(([href, label]) => (
          <li key={href}>
            <a href={href} aria-current={current(href) ? 'page' : undefined}>
              {label}
            </a>
          </li>
        ))}
      </ul>
    </nav>
  );
}

function ModeSwitch() {
  return (
    <div class="mode" role="group" aria-label="Data shown">
      {(['test', 'live'] as const).map((m) => (
        <button type="button" key={m} aria-pressed={mode.value === m} onClick={() => (mode.value = m)}>
          {m === 'test' ? 'Test data' : 'Live data'}
        </button>
      ))}
    </div>
  );
}

function Frame({ children }: { children: ComponentChildren }) {
  const { route } = useLocation();
  const s = session.value;
  return (
    <>
      <a class="skip" href="#main">
        Skip to content
      </a>
      <header class="top">
        <p class="business">{s?.merchant.businessName ?? 'Dashboard'}</p>
        {s && <ModeSwitch />}
        {s && (
          <button type="button" class="link" onClick={() => signOut().then(() => route('/dashboard/sign-in'))}>
            Sign out
          </button>
        )}
        {s && mode.value === 'test' && <p class="banner">Test data: payments made with test keys and the sandbox.</p>}
      </header>
      {s && <Nav />}
      <main id="main" tabIndex={-1}>
        {children}
      </main>
    </>
  );
}

/**
 * After a route change (the router tells it, not for the first screen), the new screen's heading
 * takes the focus, once its chunk is loaded and it is drawn: a screen reader hears where it is.
 */
function focusHeading() {
  const heading = document.querySelector<HTMLElement>('main h1');
  if (heading) {
    heading.tabIndex = -1;
    heading.focus();
  }
}

function Screens() {
  const { path, route } = useLocation();
  const open = path === '/dashboard/welcome' || path === '/dashboard/sign-in';
  useEffect(() => {
    if (session.value === null && !open) route('/dashboard/sign-in', true);
    // The owner requires a second factor this person lacks: Security first.
    else if (session.value?.secondFactor?.mustEnrol && path !== '/dashboard/security') route('/dashboard/security', true);
  }, [session.value, open, path]);
  if (session.value === undefined) return <p role="status">Loading…</p>;
  if (session.value === null && !open) return null;
  return (
    <Router onRouteChange={focusHeading}>
      <Home path="/dashboard" />
      <Home path="/dashboard/" />
      <Payments path="/dashboard/payments" />
      <Payment path="/dashboard/payments/:reference" />
      <Products path="/dashboard/products" />
      <Links path="/dashboard/links" />
      <Developers path="/dashboard/developers" />
      <Events path="/dashboard/events" />
      <Settings path="/dashboard/settings" />
      <Balances path="/dashboard/balances" />
      <Security path="/dashboard/security" />
      <Later path="/dashboard/payouts" title="Payouts" />
      <Welcome path="/dashboard/welcome" />
      <SignIn path="/dashboard/sign-in" />
      <NotFound default />
    </Router>
  );
}

function NotFound(_: { default?: boolean }) {
  useEffect(() => void (document.title = 'Not found · Dashboard'), []);
  return (
    <>
      <h1>Not found</h1>
      <p>
        No such screen. <a href="/dashboard">Home</a>
      </p>
    </>
  );
}

export function App() {
  return (
    <LocationProvider scope="/dashboard">
      <Frame>
        <Screens />
      </Frame>
    </LocationProvider>
  );
}
