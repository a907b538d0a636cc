import { lazy, Suspense } from "react";
import { Route, Switch } from "wouter";
import { errorMessage } from "./api.js";
import { Layout } from "./components/Layout.js";
import { Skeleton } from "./components/Skeleton.js";
import { NotFoundPage } from "./pages/NotFoundPage.js";
import { ProjectsPage } from "./pages/ProjectsPage.js";
import { SignInPage } from "./pages/SignInPage.js";
import { useCurrentUser } from "./session.js";

// Screens other than the first load on demand: the sign-in and the projects list stay small and fast.
const AccountPage = lazy(() => import("./pages/AccountPage.js").then((m) => ({ default: m.AccountPage })));
const ApplicationsPage = lazy(() => import("./pages/configure/ApplicationsPage.js").then((m) => ({ default: m.ApplicationsPage })));
const ContextFieldsPage = lazy(() => import("./pages/configure/ContextFieldsPage.js").then((m) => ({ default: m.ContextFieldsPage })));
const EnvironmentsPage = lazy(() => import("./pages/configure/EnvironmentsPage.js").then((m) => ({ default: m.EnvironmentsPage })));
const EventLogPage = lazy(() => import("./pages/configure/EventLogPage.js").then((m) => ({ default: m.EventLogPage })));
const IntegrationsPage = lazy(() => import("./pages/configure/IntegrationsPage.js").then((m) => ({ default: m.IntegrationsPage })));
const SegmentsPage = lazy(() => import("./pages/configure/SegmentsPage.js").then((m) => ({ default: m.SegmentsPage })));
const SignalsPage = lazy(() => import("./pages/configure/SignalsPage.js").then((m) => ({ default: m.SignalsPage })));
const StrategiesPage = lazy(() => import("./pages/configure/StrategiesPage.js").then((m) => ({ default: m.StrategiesPage })));
const TagTypesPage = lazy(() => import("./pages/configure/TagTypesPage.js").then((m) => ({ default: m.TagTypesPage })));
const ApiTokensPage = lazy(() => import("./pages/access/ApiTokensPage.js").then((m) => ({ default: m.ApiTokensPage })));
const ServiceAccountsPage = lazy(() => import("./pages/access/ServiceAccountsPage.js").then((m) => ({ default: m.ServiceAccountsPage })));
const GroupsPage = lazy(() => import("./pages/access/GroupsPage.js").then((m) => ({ default: m.GroupsPage })));
const SingleSignOnPage = lazy(() => import("./pages/access/SingleSignOnPage.js").then((m) => ({ default: m.SingleSignOnPage })));
const UsersPage = lazy(() => import("./pages/access/UsersPage.js").then((m) => ({ default: m.UsersPage })));
const ChangeRequestPage = lazy(() =>
  import("./pages/change-requests/ChangeRequestPage.js").then((m) => ({ default: m.ChangeRequestPage })),
);
const PlaygroundPage = lazy(() => import("./pages/playground/PlaygroundPage.js").then((m) => ({ default: m.PlaygroundPage })));
const FlagsOverviewPage = lazy(() => import("./pages/flags/FlagsOverviewPage.js").then((m) => ({ default: m.FlagsOverviewPage })));
const FlagTypesPage = lazy(() => import("./pages/flags/FlagTypesPage.js").then((m) => ({ default: m.FlagTypesPage })));
const FlagPage = lazy(() => import("./pages/flag/FlagPage.js").then((m) => ({ default: m.FlagPage })));
const ProjectPage = lazy(() => import("./pages/project/ProjectPage.js").then((m) => ({ default: m.ProjectPage })));

export function App() {
  const me = useCurrentUser();
  if (me.isPending) return <Skeleton shape="page" />;
  if (me.isError) return <p className="error-note">Vexil could not be reached: {errorMessage(me.error)}</p>;
  if (me.data === null) return <SignInPage />;
  return (
    <Layout me={me.data}>
      <Suspense fallback={<Skeleton shape="page" />}>
        <Switch>
          <Route path="/" component={ProjectsPage} />
          <Route path="/projects" component={ProjectsPage} />
          <Route path="/projects/:projectId/features/:flagName" component={FlagPage} />
          <Route path="/projects/:projectId/change-requests/:id" component={ChangeRequestPage} />
          <Route path="/projects/:projectId/:tab?" component={ProjectPage} />
          <Route path="/flags" component={FlagsOverviewPage} />
          <Route path="/flag-types" component={FlagTypesPage} />
          <Route path="/account" component={AccountPage} />
          <Route path="/playground" component={PlaygroundPage} />
          <Route path="/segments" component={SegmentsPage} />
          <Route path="/context" component={ContextFieldsPage} />
          <Route path="/environments" component={EnvironmentsPage} />
          <Route path="/tag-types" component={TagTypesPage} />
          <Route path="/strategies" component={StrategiesPage} />
          <Route path="/events" component={EventLogPage} />
          <Route path="/integrations" component={IntegrationsPage} />
          <Route path="/signals" component={SignalsPage} />
          <Route path="/applications" component={ApplicationsPage} />
          <Route path="/access/api-tokens" component={ApiTokensPage} />
          <Route path="/access/users" component={UsersPage} />
          <Route path="/access/service-accounts" component={ServiceAccountsPage} />
          <Route path="/access/groups" component={GroupsPage} />
          <Route path="/single-sign-on" component={SingleSignOnPage} />
          <Route component={NotFoundPage} />
        </Switch>
      </Suspense>
    </Layout>
  );
}
