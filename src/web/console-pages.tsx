// The owner console pages: grants (reads per day, revoke behind a confirmation step), the access
// log (filter by grant), and connections with their streams' record counts and records over time.
// Pure views over data the routes load; names other parties chose are cleaned and isolated (<bdi>).
import { cleanDisplayName } from "../core/display-name.js";
import type { Grant } from "../core/grant.js";
import type { AccessLogEntry } from "../store/store.js";
import { BarChart } from "./charts.js";
import type { ConnectionRow, GrantRow } from "./console-data.js";
import { READ_DAYS } from "./console-data.js";
import { Page } from "./layout.js";

/** A client's name as shown: cleaned of control and format characters, isolated from the page's words. */
export function ClientName(props: { name: string | null; id?: string }) {
  return <bdi id={props.id}>{cleanDisplayName(props.name, "client")}</bdi>;
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
              <th>Reads, {READ_DAYS} days</th>
              <th>Last use</th>
              <th>Status</th>
              <th />
            </tr>
          </thead>
          <tbody>
            {props.rows.map((row) => (
              <tr id={row.grant.grant_id}>
                <td>
                  <strong>
                    <ClientName name={row.grant.client_name} />
                  </strong>
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
                <td class="reads">
                  <BarChart
                    bars={row.reads}
                    unit="reads"
                    width={150}
                    title={`${row.reads.reduce((n, b) => n + b.value, 0)} reads in the last ${READ_DAYS} days`}
                  />
                  <span class="count">{row.reads.reduce((n, b) => n + b.value, 0)} reads</span>
                </td>
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
                    <a
                      class="button danger"
                      href={`/console/grants/${row.grant.grant_id}/revoke`}
                      aria-label={`Revoke ${cleanDisplayName(row.grant.client_name, "client")}…`}
                    >
                      Revoke…
                    </a>
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

/** Revoke's confirmation step: a page, so it works without script; the POST stays CSRF-checked. */
export function RevokePage(props: { nonce: string; csrf: string; row: GrantRow }) {
  const { grant } = props.row;
  return (
    <Page title="Revoke a grant" nonce={props.nonce} nav={{ current: "grants", csrf: props.csrf }}>
      <div class="panel narrow wide">
        <h1>
          Revoke <ClientName name={grant.client_name} />?
        </h1>
        <p>
          <code>{grant.grant_id}</code>, created {when(grant.created_at)}, can read:
        </p>
        <ul>
          {props.row.scope.map((line) => (
            <li>{line}</li>
          ))}
        </ul>
        <p>
          Its very next call fails and its refresh token stops working; to read again it has to ask you again.
          This cannot be undone.
        </p>
        <form method="post" action={`/console/grants/${grant.grant_id}/revoke`}>
          <input type="hidden" name="_csrf" value={props.csrf} />
          <div class="actions">
            <button class="danger" type="submit" id="confirm-revoke">
              Revoke access
            </button>
            <a class="button" href="/console">
              Cancel
            </a>
          </div>
        </form>
      </div>
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
  const label = (g: Grant) => (
    <>
      <ClientName name={g.client_name} /> ({g.grant_id})
    </>
  );
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
                <td>
                  {e.grant_id ? (
                    <>
                      <ClientName name={e.client_name} /> ({e.grant_id})
                    </>
                  ) : (
                    "owner"
                  )}
                </td>
                <td>
                  <code>{e.route}</code>
                </td>
                <td>
                  {e.stream ?? "—"}
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
                  <th>Over time</th>
                </tr>
              </thead>
              <tbody>
                {row.streams.map((s) => (
                  <tr>
                    <td>{s.label}</td>
                    <td>{s.count}</td>
                    <td>
                      {s.overTime.length > 0 ? (
                        <BarChart
                          bars={s.overTime}
                          unit="records"
                          width={240}
                          title={`${s.label} records per ${s.granularity}, ${s.overTime[0].label} to ${s.overTime.at(-1)?.label}`}
                        />
                      ) : (
                        <span class="muted">—</span>
                      )}
                    </td>
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
