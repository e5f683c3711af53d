// The dashboard's frame: a skip link, the header with the business, the test/live switch and
// sign-out, the navigation (Balances and Payouts keep their places), and the router's screens.
// Signed out, every screen but the sign-in link's and the sign-in's becomes the sign-in.
import { h, Fragment, type ComponentChildren } from 'preact';
import { useEffect, useRef } from 'preact/hooks';
import { LocationProvider, Router, useLocation } from 'preact-iso';
import { mode, session, signOut } from './api.ts';
import { Developers } from './screens/Developers.tsx';
import { Events } from './screens/Events.tsx';
import { Links } from './screens/Links.tsx';
import { Settings } from './screens/Settings.tsx';
import { Home } from './screens/Home.tsx';
import { Payment } from './screens/Payment.tsx';
import { Payments } from './screens/Payments.tsx';
import { Products } from './screens/Products.tsx';
import { Later } from './screens/Later.tsx';
import { SignIn } from './screens/SignIn.tsx';
import { Welcome } from './screens/Welcome.tsx';

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

/** After a route change, the new screen's heading takes the focus (a screen reader hears where it is). */
function useFocusOnRoute() {
  const { url } = useLocation();
  const first = useRef(true);
  useEffect(() => {
    if (first.current) {
      first.current = false;
      return;
    }
    const heading = document.querySelector<HTMLElement>('main h1');
    if (heading) {
      heading.tabIndex = -1;
      heading.focus();
    }
  }, [url]);
}

function Screens() {
  useFocusOnRoute();
  const { path, route } = useLocation();
  const open = path === '/dashboard/welcome' || path === '/dashboard/sign-in';
  useEffect(() => {
    if (session.value === null && !open) route('/dashboard/sign-in', true);
  }, [session.value, open]);
  if (session.value === undefined) return <p role="status">Loading…</p>;
  if (session.value === null && !open) return null;
  return (
    <Router>
      <Home path="/dashboard" />
      <Home path="/dashboard/" />
      <Payments path="/dashboard/payments" />
      <Payment path="/dashboard/payments/:reference" />
      <Products path="/dashboard/products" />
      <Links path="/dashboard/links" />
      <Developers path="/dashboard/developers" />
      <Events path="/dashboard/events" />
      <Settings path="/dashboard/settings" />
      <Later path="/dashboard/balances" title="Balances" />
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
