import { useQuery } from '@tanstack/react-query';
import type { ReactNode } from 'react';
import { Link, Redirect, Route, Switch, useLocation, useRoute } from 'wouter';
import { core } from './api';
import { ErrorNotice, MeContext, PageHeading, useMe } from './components';
import { Callback } from './pages/Callback';
import { Login } from './pages/Login';
import { Overview } from './pages/Overview';
import { Secrets } from './pages/Secrets';
import { SettingsPage } from './pages/Settings';
import { Tokens } from './pages/Tokens';
import { Users } from './pages/Users';
import { Catalog } from './pages/Catalog';
import { Deployments } from './pages/Deployments';
import { DeploymentPage } from './pages/Deployment';
import { HubPage } from './pages/Hub';
import { Activity } from './pages/Activity';
import { TemplatePage } from './pages/Template';
import { returnTo, signOut, useSession } from './session';

export function App() {
  const { session, restoring } = useSession();
  const [path] = useLocation();
  return (
    <Switch>
      <Route path="/auth/callback" component={Callback} />
      <Route path="/login">{session ? <Redirect to={returnTo()} replace /> : <Login />}</Route>
      <Route>
        {session ? (
          <Shell />
        ) : restoring ? (
          // A new tab or a reload: Core's cookie may still hold a session (session.ts).
          <main id="main" className="page">
            <p role="status">Loading…</p>
          </main>
        ) : (
          <Redirect to={`/login?next=${encodeURIComponent(path)}`} replace />
        )}
      </Route>
    </Switch>
  );
}

function Shell() {
  const { warning } = useSession();
  const me = useQuery({ queryKey: ['me'], queryFn: core.me });
  if (!me.data) {
    return (
      <main id="main" className="page">
        {me.error ? (
          <>
            <ErrorNotice error={me.error} />
            <button type="button" onClick={() => signOut()}>
              Sign out
            </button>
          </>
        ) : (
          <p role="status">Loading…</p>
        )}
      </main>
    );
  }
  return (
    <MeContext.Provider value={me.data}>
      <a className="skip" href="#main">
        Skip to content
      </a>
      <Header />
      {warning && (
        <div className="banner" role="status">
          <strong>Warning:</strong> {warning}
        </div>
      )}
      <main id="main" className="page" tabIndex={-1}>
        <Switch>
          <Route path="/" component={Overview} />
          <Route path="/secrets" component={Secrets} />
          <Route path="/users" component={Users} />
          <Route path="/tokens" component={Tokens} />
          <Route path="/settings" component={SettingsPage} />
          <Route path="/catalog" component={Catalog} />
          <Route path="/catalog/:slug" component={TemplatePage} />
          <Route path="/deployments" component={Deployments} />
          <Route path="/deployments/:id" component={DeploymentPage} />
          <Route path="/hub" component={HubPage} />
          <Route path="/activity" component={Activity} />
          <Route>
            <PageHeading>Page not found</PageHeading>
            <p>
              <Link href="/">Back to the overview</Link>
            </p>
          </Route>
        </Switch>
      </main>
    </MeContext.Provider>
  );
}

/** The main navigation's pages, in order. */
const NAV = [
  ['/', 'Overview'],
  ['/catalog', 'Catalog'],
  ['/deployments', 'Deployments'],
  ['/secrets', 'Secrets'],
  ['/users', 'Users'],
  ['/tokens', 'Machine tokens'],
  ['/hub', 'Hub'],
  ['/activity', 'Activity'],
  ['/settings', 'Settings'],
] as const;

function NavLink({ href, children }: { href: string; children: ReactNode }) {
  const [active] = useRoute(href);
  // A section's pages (a deployment, a template) keep their section marked.
  const [inside] = useRoute(`${href}/*`);
  return (
    <li>
      <Link href={href} aria-current={active || (href !== '/' && inside) ? 'page' : undefined}>
        {children}
      </Link>
    </li>
  );
}

/** The Hub's header, in Core's CSS: the mark and name, the pill navigation, who is signed in and Sign out. */
function Header() {
  const me = useMe();
  const who = me.user?.name || me.user?.email || 'machine token';
  return (
    <header className="top">
      <div className="top-inner">
        <Link href="/" className="brand">
          <span className="mark" aria-hidden="true">
            C
          </span>
          Core
        </Link>
        <nav aria-label="Main">
          <ul>
            {NAV.map(([href, label]) => (
              <NavLink key={href} href={href}>
                {label}
              </NavLink>
            ))}
          </ul>
        </nav>
        <div className="who">
          <span className="who-name" title={me.user?.email}>
            {who}
          </span>
          <span className={`role role-${me.role}`}>{me.role}</span>
          <button type="button" onClick={() => signOut()}>
            Sign out
          </button>
        </div>
      </div>
    </header>
  );
}
