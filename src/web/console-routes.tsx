// The owner console routes: grants (revoke: a confirmation page, then a CSRF-checked POST), the
// access log and connections. Reachable only with a live session cookie; without one, GETs go to
// sign-in and come back.
import type { Hono } from "hono";
import { GRANT_ID_RE } from "../core/ids.js";
import type { RsEnv } from "../rs/env.js";
import { connectionRows, grantRows, publicGrant } from "./console-data.js";
import { AccessLogPage, ConnectionsPage, GrantsPage, RevokePage } from "./console-pages.js";
import { readForm, renderPage, type WebContext } from "./http.js";
import { currentSession, type OwnerSession, requirePostSession, WebRefusal } from "./owner-gate.js";
import { webRoute } from "./web-route.js";

const ACCESS_LOG_ROWS = 200;

/** The session of a page view, or a redirect to sign-in that comes back here. */
async function pageSession(c: WebContext): Promise<OwnerSession | Response> {
  const session = await currentSession(c);
  if (session) return session;
  const url = new URL(c.req.url);
  return c.redirect(`/signin?next=${encodeURIComponent(url.pathname)}`, 303);
}

function noSuchGrant(): WebRefusal {
  return new WebRefusal(404, "No such grant", "There is no grant with that id.");
}

export function registerConsole(app: Hono<RsEnv>): void {
  app.get(
    "/console",
    webRoute(async (c) => {
      const session = await pageSession(c);
      if (session instanceof Response) return session;
      const rows = await grantRows(c.get("deps").store);
      const revoked = c.req.query("revoked");
      const notice = revoked && GRANT_ID_RE.test(revoked) ? `Revoked ${revoked}.` : undefined;
      return renderPage(c, {}, (nonce) => (
        <GrantsPage nonce={nonce} csrf={session.csrf} rows={rows} notice={notice} />
      ));
    }),
  );

  app.get(
    "/console/grants/:id/revoke",
    webRoute(async (c) => {
      const session = await pageSession(c);
      if (session instanceof Response) return session;
      const id = c.req.param("id") ?? "";
      const row = GRANT_ID_RE.test(id)
        ? (await grantRows(c.get("deps").store)).find((r) => r.grant.grant_id === id)
        : undefined;
      if (!row || row.status === "revoked") throw noSuchGrant();
      return renderPage(c, {}, (nonce) => <RevokePage nonce={nonce} csrf={session.csrf} row={row} />);
    }),
  );

  app.post(
    "/console/grants/:id/revoke",
    webRoute(async (c) => {
      await requirePostSession(c, await readForm(c));
      const id = c.req.param("id") ?? "";
      const { store } = c.get("deps");
      if (!GRANT_ID_RE.test(id) || !(await store.revokeGrant(id, new Date().toISOString()))) {
        throw noSuchGrant();
      }
      return c.redirect(`/console?revoked=${id}`, 303);
    }),
  );

  app.get(
    "/console/access-log",
    webRoute(async (c) => {
      const session = await pageSession(c);
      if (session instanceof Response) return session;
      const { store } = c.get("deps");
      const wanted = c.req.query("grant");
      const grantId = wanted && GRANT_ID_RE.test(wanted) ? wanted : null;
      const [entries, grants] = await Promise.all([
        store.listAccessLog({ limit: ACCESS_LOG_ROWS, grantId: grantId ?? undefined }),
        store.listGrants(),
      ]);
      return renderPage(c, {}, (nonce) => (
        <AccessLogPage
          nonce={nonce}
          csrf={session.csrf}
          entries={entries}
          grants={grants.map(publicGrant)}
          grantId={grantId}
        />
      ));
    }),
  );

  app.get(
    "/console/connections",
    webRoute(async (c) => {
      const session = await pageSession(c);
      if (session instanceof Response) return session;
      const rows = await connectionRows(c.get("deps").store);
      return renderPage(c, {}, (nonce) => <ConnectionsPage nonce={nonce} csrf={session.csrf} rows={rows} />);
    }),
  );
}
