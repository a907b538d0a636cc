import { Route, Switch } from "wouter";
import { errorMessage } from "./api.js";
import { Layout } from "./components/Layout.js";
import { AccountPage } from "./pages/AccountPage.js";
import { ApplicationsPage } from "./pages/configure/ApplicationsPage.js";
import { ContextFieldsPage } from "./pages/configure/ContextFieldsPage.js";
import { EventLogPage } from "./pages/configure/EventLogPage.js";
import { IntegrationsPage } from "./pages/configure/IntegrationsPage.js";
import { SegmentsPage } from "./pages/configure/SegmentsPage.js";
import { SignalsPage } from "./pages/configure/SignalsPage.js";
import { StrategiesPage } from "./pages/configure/StrategiesPage.js";
import { TagTypesPage } from "./pages/configure/TagTypesPage.js";
import { ApiTokensPage } from "./pages/access/ApiTokensPage.js";
import { ServiceAccountsPage } from "./pages/access/ServiceAccountsPage.js";
import { UsersPage } from "./pages/access/UsersPage.js";
import { NotFoundPage } from "./pages/NotFoundPage.js";
import { ChangeRequestPage } from "./pages/change-requests/ChangeRequestPage.js";
import { FlagPage } from "./pages/flag/FlagPage.js";
import { ProjectPage } from "./pages/project/ProjectPage.js";
import { ProjectsPage } from "./pages/ProjectsPage.js";
import { SignInPage } from "./pages/SignInPage.js";
import { useCurrentUser } from "./session.js";

export function App() {
  const me = useCurrentUser();
  if (me.isPending) return <p className="loading">Loading…</p>;
  if (me.isError) return <p className="error-note">Vexil could not be reached: {errorMessage(me.error)}</p>;
  if (me.data === null) return <SignInPage />;
  return (
    <Layout me={me.data}>
      <Switch>
        <Route path="/" component={ProjectsPage} />
        <Route path="/projects" component={ProjectsPage} />
        <Route path="/projects/:projectId/features/:flagName" component={FlagPage} />
        <Route path="/projects/:projectId/change-requests/:id" component={ChangeRequestPage} />
        <Route path="/projects/:projectId/:tab?" component={ProjectPage} />
        <Route path="/account" component={AccountPage} />
        <Route path="/segments" component={SegmentsPage} />
        <Route path="/context" component={ContextFieldsPage} />
        <Route path="/tag-types" component={TagTypesPage} />
        <Route path="/strategies" component={StrategiesPage} />
        <Route path="/events" component={EventLogPage} />
        <Route path="/integrations" component={IntegrationsPage} />
        <Route path="/signals" component={SignalsPage} />
        <Route path="/applications" component={ApplicationsPage} />
        <Route path="/access/api-tokens" component={ApiTokensPage} />
        <Route path="/access/users" component={UsersPage} />
        <Route path="/access/service-accounts" component={ServiceAccountsPage} />
        <Route component={NotFoundPage} />
      </Switch>
    </Layout>
  );
}
