// The owner console routes: grants (revoke is a CSRF-checked POST), the access log and connections.
// Reachable only with a live session cookie; without one, GETs go to sign-in and come back.
import type { Hono } from "hono";
import type { Grant } from "../core/grant.js";
import { visibleScopes } from "../core/grant-scope.js";
import { GRANT_ID_RE } from "../core/ids.js";
import type { RsEnv } from "../rs/env.js";
import type { StoredGrant } from "../store/store.js";
import { describeGrantStream, loadCatalog } from "./catalog.js";
import {
  AccessLogPage,
  type ConnectionRow,
  ConnectionsPage,
  type GrantRow,
  GrantsPage,
} from "./console-pages.js";
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

function publicGrant(grant: StoredGrant): Grant {
  const { token_hash: _hidden, ...rest } = grant;
  return rest;
}

async function grantRows(c: WebContext): Promise<GrantRow[]> {
  const { store } = c.get("deps");
  const [grants, catalog] = await Promise.all([store.listGrants(), loadCatalog(store)]);
  const labels = new Map(catalog.map((s) => [`${s.connectorKey}/${s.stream}`, s.label]));
  const now = Date.now();
  const rows = await Promise.all(
    grants.map(async (stored) => {
      const grant = publicGrant(stored);
      const [last] = await store.listAccessLog({ limit: 1, grantId: grant.grant_id });
      const status: GrantRow["status"] = grant.revoked_at
        ? "revoked"
        : grant.expires_at && Date.parse(grant.expires_at) <= now
          ? "expired"
          : "active";
      return {
        grant,
        scope: grant.streams.map((s) =>
          describeGrantStream(
            s,
            labels.get(`${s.connector_key}/${s.stream}`) ?? `${s.connector_key}:${s.stream}`,
          ),
        ),
        lastUse: last?.at ?? null,
        status,
      };
    }),
  );
  return rows.sort((a, b) => b.grant.created_at.localeCompare(a.grant.created_at));
}

async function connectionRows(c: WebContext): Promise<ConnectionRow[]> {
  const { store } = c.get("deps");
  const [manifests, connections, catalog] = await Promise.all([
    store.listManifests(),
    store.listConnections(),
    loadCatalog(store),
  ]);
  const labels = new Map(catalog.map((s) => [`${s.connectorKey}/${s.stream}`, s.label]));
  const counts = new Map<string, { label: string; count: number }[]>();
  for (const scope of visibleScopes({ kind: "owner" }, { manifests, connections })) {
    const byConnection = await store.countRecords(scope);
    for (const connectionId of scope.connectionIds) {
      const list = counts.get(connectionId) ?? [];
      list.push({
        label: labels.get(`${scope.connectorKey}/${scope.stream.name}`) ?? scope.stream.name,
        count: byConnection[connectionId] ?? 0,
      });
      counts.set(connectionId, list);
    }
  }
  return [...connections]
    .sort(
      (a, b) =>
        a.connector_key.localeCompare(b.connector_key) || a.display_name.localeCompare(b.display_name),
    )
    .map((conn) => ({
      connectionId: conn.connection_id,
      connectorKey: conn.connector_key,
      displayName: conn.display_name,
      createdAt: conn.created_at,
      streams: counts.get(conn.connection_id) ?? [],
    }));
}

export function registerConsole(app: Hono<RsEnv>): void {
  app.get(
    "/console",
    webRoute(async (c) => {
      const session = await pageSession(c);
      if (session instanceof Response) return session;
      const rows = await grantRows(c);
      const revoked = c.req.query("revoked");
      const notice = revoked && GRANT_ID_RE.test(revoked) ? `Revoked ${revoked}.` : undefined;
      return renderPage(c, {}, (nonce) => (
        <GrantsPage nonce={nonce} csrf={session.csrf} rows={rows} notice={notice} />
      ));
    }),
  );

  app.post(
    "/console/grants/:id/revoke",
    webRoute(async (c) => {
      await requirePostSession(c, await readForm(c));
      const id = c.req.param("id") ?? "";
      const { store } = c.get("deps");
      if (!GRANT_ID_RE.test(id) || !(await store.revokeGrant(id, new Date().toISOString()))) {
        throw new WebRefusal(404, "No such grant", "There is no grant with that id.");
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
      const rows = await connectionRows(c);
      return renderPage(c, {}, (nonce) => <ConnectionsPage nonce={nonce} csrf={session.csrf} rows={rows} />);
    }),
  );
}
