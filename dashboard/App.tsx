// The dashboard's frame: a skip link, the header with the business, the test/live switch,
// sign-out and the language, the navigation, and the router's screens. Its words go through t().
// Signed out, every screen but the sign-in link's and the sign-in's becomes the sign-in.
import { h, Fragment, type ComponentChildren, type ComponentType } from 'preact';
import { useEffect } from 'preact/hooks';
import { lazy, LocationProvider, Router, useLocation } from 'preact-iso';
import { may, mode, session, signOut, stepUpPrompt } from './api.ts';
import { SignIn } from './screens/SignIn.tsx';
import { lang, LANGS, speak, t, type Lang } from './words.ts';

// Each screen is its own chunk (its default export), fetched the first time the router draws it (the sign-in comes
// with the frame): the first load carries the frame, the sign-in and what every screen shares.
// One table gives the router its routes and the navigation its links (a label: listed, in order),
// and the permission a screen needs beyond the reads every role holds (payments, balances, payouts,
// account: docs/team.md): a role without it is not offered the screen, and its URL says so (the
// service refuses the requests themselves, whatever is shown).
type Screen = [path: string, label: string | null, load: () => Promise<{ default: ComponentType<{ path?: string }> }>, permission?: string];
const SCREENS: Screen[] = [
  ['/dashboard', 'Home', () => import('./screens/Home.tsx')],
  ['/dashboard/payments', 'Payments', () => import('./screens/Payments.tsx')],
  ['/dashboard/payments/:reference', null, () => import('./screens/Payment.tsx')],
  ['/dashboard/products', 'Products', () => import('./screens/Products.tsx')],
  ['/dashboard/links', 'Links', () => import('./screens/Links.tsx')],
  ['/dashboard/balances', 'Balances', () => import('./screens/Balances.tsx')],
  ['/dashboard/swaps', 'Swaps', () => import('./screens/Swaps.tsx'), 'balances.write'],
  ['/dashboard/payouts', 'Payouts', () => import('./screens/Payouts.tsx'), 'payouts.write'],
  ['/dashboard/withdrawals', 'Withdrawals', () => import('./screens/Withdrawals.tsx'), 'balances.write'],
  ['/dashboard/refunds', 'Refunds', () => import('./screens/Refunds.tsx')],
  ['/dashboard/developers', 'Developers', () => import('./screens/Developers.tsx'), 'developers.read'],
  ['/dashboard/keys', null, () => import('./screens/Keys.tsx'), 'developers.read'],
  ['/dashboard/events', 'Events', () => import('./screens/Events.tsx'), 'developers.read'],
  ['/dashboard/settings', 'Settings', () => import('./screens/Settings.tsx')],
  ['/dashboard/security', 'Security', () => import('./screens/Security.tsx')],
  ['/dashboard/members', 'Members', () => import('./screens/Members.tsx'), 'team.read'],
  ['/dashboard/audit', 'Audit log', () => import('./screens/Audit.tsx'), 'audit.read'],
  ['/dashboard/join', null, () => import('./screens/Join.tsx')],
  ['/dashboard/welcome', null, () => import('./screens/Welcome.tsx')],
];
const ROUTES = SCREENS.map(([path, label, load, permission]) => [path, label, lazy(load), permission] as const);

stepUpPrompt.ask = (path, options) => import('./step-up.tsx').then((m) => m.stepUp(path, options));

function Nav() {
  const { path } = useLocation();
  const current = (href: string) => (href === '/dashboard' ? path === '/dashboard' || path === '/dashboard/' : path.startsWith(href));
  return (
    <nav aria-label={t('Dashboard')}>
      <ul>
        {ROUTES.map(
          ([href, label, , permission]) =>
            label &&
            may(permission) && (
              <li key={href}>
                <a href={href} aria-current={current(href) ? 'page' : undefined}>
                  {t(label)}
                </a>
              </li>
            ),
        )}
      </ul>
    </nav>
  );
}

function ModeSwitch() {
  return (
    <div class="mode" role="group" aria-label={t('Data shown')}>
      {(['test', 'live'] as const).map((m) => (
        <button type="button" key={m} aria-pressed={mode.value === m} onClick={() => (mode.value = m)}>
          {t(m === 'test' ? 'Test data' : 'Live data')}
        </button>
      ))}
    </div>
  );
}

/** Test data on a real test network (a testnet, the dev chain) is said as such; else it is the sandbox's. */
const testnet = (networks: Array<{ name: string }>) =>
  networks.length
    ? t('Test data: payments on {names}, a test network; its coins are worth nothing.', { names: networks.map((n) => n.name).join(', ') })
    : t('Test data: payments made with test keys and the sandbox.');

function Frame({ children }: { children: ComponentChildren }) {
  const { route } = useLocation();
  const s = session.value;
  return (
    <>
      <a class="skip" href="#main">
        {t('Skip to content')}
      </a>
      <header class="top">
        <p class="business">{s?.merchant.businessName ?? t('Dashboard')}</p>
        {s && <ModeSwitch />}
        {s && (
          <button type="button" class="link" onClick={() => signOut().then(() => route('/dashboard/sign-in'))}>
            {t('Sign out')}
          </button>
        )}
        <select class="small" aria-label={t('Language')} value={lang.value} onChange={(e) => speak((e.currentTarget as HTMLSelectElement).value as Lang, true)}>
          {Object.entries(LANGS).map(([code, name]) => (
            <option key={code} value={code} lang={code}>
              {name}
            </option>
          ))}
        </select>
        {s && mode.value === 'test' && <p class="banner">{testnet(s.networks.test)}</p>}
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
  const open = /^\/dashboard\/(welcome|sign-in|join)$/.test(path);
  useEffect(() => {
    if (session.value === null && !open) route('/dashboard/sign-in', true);
    // The owner requires a second factor this person lacks: Security first.
    else if (session.value?.secondFactor?.mustEnrol && path !== '/dashboard/security') route('/dashboard/security', true);
  }, [session.value, open, path]);
  if (session.value === undefined) return <p role="status">{t('Loading…')}</p>;
  if (session.value === null && !open) return null;
  return (
    <Router onRouteChange={focusHeading}>
      {ROUTES.map(([path, , Screen, permission]) => (may(permission) ? <Screen key={path} path={path} /> : <NotFound key={path} path={path} refused />))}
      <SignIn path="/dashboard/sign-in" />
      <NotFound default />
    </Router>
  );
}

/** An unknown URL, or a screen the role cannot use (`refused`): said plainly (the service would refuse its requests anyway). */
function NotFound({ refused }: { default?: boolean; path?: string; refused?: boolean }) {
  const title = refused ? 'Your role cannot see this' : t('Not found');
  useEffect(() => void (document.title = title), [title]);
  return (
    <>
      <h1>{title}</h1>
      <p>
        <a href="/dashboard">{t('Home')}</a>
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
