// The owner console pages: grants (with revoke), the access log (filter by grant), and connections
// with their streams' record counts. Pure views over data the routes load.
import type { Grant } from "../core/grant.js";
import type { AccessLogEntry } from "../store/store.js";
import { Page } from "./layout.js";

export interface GrantRow {
  grant: Grant;
  scope: string[];
  lastUse: string | null;
  status: "active" | "revoked" | "expired";
}

function when(iso: string | null): string {
  return iso ? `${iso.slice(0, 16).replace("T", " ")} UTC` : "never";
}

export function GrantsPage(props: { nonce: string; csrf: string; rows: GrantRow[]; notice?: string }) {
  return (
    <Page title="Grants" nonce={props.nonce} nav={{ current: "grants", csrf: props.csrf }}>
      <h1>Grants</h1>
      {props.notice ? <p class="ok">{props.notice}</p> : null}
      {props.rows.length === 0 ? (
        <p class="muted">No grants yet. Connect an MCP client over OAuth, or run `pdpp grant create`.</p>
      ) : (
        <table>
          <thead>
            <tr>
              <th>Client</th>
              <th>Scope</th>
              <th>Created</th>
              <th>Last use</th>
              <th>Status</th>
              <th />
            </tr>
          </thead>
          <tbody>
            {props.rows.map((row) => (
              <tr id={row.grant.grant_id}>
                <td>
                  <strong>{row.grant.client_name}</strong>
                  <br />
                  <code class="muted">{row.grant.grant_id}</code>
                </td>
                <td>
                  {row.scope.map((line) => (
                    <div>{line}</div>
                  ))}
                  {row.grant.expires_at ? (
                    <div class="muted">expires {when(row.grant.expires_at)}</div>
                  ) : null}
                </td>
                <td>{when(row.grant.created_at)}</td>
                <td>
                  {when(row.lastUse)}
                  <br />
                  <a href={`/console/access-log?grant=${row.grant.grant_id}`}>access log</a>
                </td>
                <td>
                  <span class="tag">{row.status}</span>
                </td>
                <td>
                  {row.status === "revoked" ? null : (
                    <form method="post" action={`/console/grants/${row.grant.grant_id}/revoke`}>
                      <input type="hidden" name="_csrf" value={props.csrf} />
                      <button class="danger" type="submit" aria-label={`Revoke ${row.grant.client_name}`}>
                        Revoke
                      </button>
                    </form>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </Page>
  );
}

export function AccessLogPage(props: {
  nonce: string;
  csrf: string;
  entries: AccessLogEntry[];
  grants: Grant[];
  grantId: string | null;
}) {
  const label = (g: Grant) => `${g.client_name} (${g.grant_id})`;
  return (
    <Page title="Access log" nonce={props.nonce} nav={{ current: "access-log", csrf: props.csrf }}>
      <h1>Access log</h1>
      <p>
        Filter:{" "}
        <a href="/console/access-log" aria-current={props.grantId === null ? "page" : undefined}>
          everything
        </a>
        {props.grants.map((g) => (
          <>
            {" · "}
            <a
              href={`/console/access-log?grant=${g.grant_id}`}
              aria-current={props.grantId === g.grant_id ? "page" : undefined}
            >
              {label(g)}
            </a>
          </>
        ))}
      </p>
      {props.entries.length === 0 ? (
        <p class="muted">Nothing read yet.</p>
      ) : (
        <table>
          <thead>
            <tr>
              <th>Time</th>
              <th>Who</th>
              <th>What</th>
              <th>Stream</th>
              <th>Records</th>
              <th>Bytes</th>
              <th>Status</th>
            </tr>
          </thead>
          <tbody>
            {props.entries.map((e) => (
              <tr>
                <td>{when(e.at)}</td>
                <td>{e.grant_id ? `${e.client_name ?? "client"} (${e.grant_id})` : "owner"}</td>
                <td>
                  <code>{e.route}</code>
                </td>
                <td>
                  {e.stream ?? ""}
                  {e.connection_id ? <div class="muted">{e.connection_id}</div> : null}
                </td>
                <td>{e.record_count}</td>
                <td>{e.bytes}</td>
                <td>{e.status}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </Page>
  );
}

export interface ConnectionRow {
  connectionId: string;
  connectorKey: string;
  displayName: string;
  createdAt: string;
  streams: { label: string; count: number }[];
}

export function ConnectionsPage(props: { nonce: string; csrf: string; rows: ConnectionRow[] }) {
  return (
    <Page title="Connections" nonce={props.nonce} nav={{ current: "connections", csrf: props.csrf }}>
      <h1>Connections</h1>
      {props.rows.length === 0 ? (
        <p class="muted">No data yet. Import some with `pdpp import`.</p>
      ) : (
        props.rows.map((row) => (
          <div class="panel">
            <h2>
              {row.displayName} <span class="tag">{row.connectorKey}</span>
            </h2>
            <p class="muted">
              <code>{row.connectionId}</code> · added {when(row.createdAt)}
            </p>
            <table>
              <thead>
                <tr>
                  <th>Stream</th>
                  <th>Records</th>
                </tr>
              </thead>
              <tbody>
                {row.streams.map((s) => (
                  <tr>
                    <td>{s.label}</td>
                    <td>{s.count}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        ))
      )}
    </Page>
  );
}
