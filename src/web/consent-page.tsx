// The consent page = the grant editor: who asks (client name, where it sends you back, what it
// asked for), then streams, connections, fields, a time range and an expiry, and Approve / Deny.
import type { CatalogStream } from "./catalog.js";
import type { PendingAuthorizationView } from "./consent-backend.js";
import { type ConsentSelection, EXPIRY_CHOICES } from "./consent-form.js";
import { Page } from "./layout.js";

const EXPIRY_LABELS: Record<string, string> = {
  "1": "1 day",
  "7": "7 days",
  "30": "30 days",
  "90": "90 days",
  never: "until I revoke it",
};

export function ConsentPage(props: {
  nonce: string;
  csrf: string;
  pending: PendingAuthorizationView;
  catalog: CatalogStream[];
  selection: ConsentSelection;
  error?: string;
}) {
  const { pending, selection } = props;
  return (
    <Page title="Authorize access" nonce={props.nonce} nav={{ current: null, csrf: props.csrf }}>
      <h1>
        <span id="client-name">{pending.clientName}</span> wants to read your data
      </h1>
      <div class="panel">
        <div>
          Sends you back to <strong id="redirect-host">{pending.redirectHost}</strong>
        </div>
        <div class="muted">
          Client id <code>{pending.clientId}</code>
        </div>
        <div class="muted">
          Asked for: <code>{pending.requestedScope ?? "(no scope named: everything)"}</code>
        </div>
        <div class="muted">
          Access is read-only. Choose exactly what it may read; you can revoke it any time.
        </div>
      </div>
      {props.error ? <p class="error">{props.error}</p> : null}
      <form method="post" action={`/consent/${pending.id}`}>
        <input type="hidden" name="_csrf" value={props.csrf} />
        <h2>Streams</h2>
        {props.catalog.length === 0 ? <p class="muted">There is no data to share yet.</p> : null}
        {props.catalog.map((s) => {
          const conns = selection.connections(s.key);
          const fields = selection.fields(s.key);
          return (
            <div class="stream">
              <label>
                <input type="checkbox" name="stream" value={s.key} checked={selection.streams.has(s.key)} />{" "}
                {s.label}
                {s.description ? <span class="muted"> · {s.description}</span> : null}
              </label>
              <div class="detail">
                <span class="muted">Connections</span>
                <span>
                  {s.connections.map((c) => (
                    <label>
                      <input
                        type="checkbox"
                        name={`conn:${s.key}`}
                        value={c.connection_id}
                        checked={conns.has(c.connection_id)}
                      />{" "}
                      {c.display_name}
                    </label>
                  ))}
                </span>
                <span class="muted">Fields</span>
                <span>
                  {s.fields.map((f) => (
                    <label>
                      <input type="checkbox" name={`field:${s.key}`} value={f} checked={fields.has(f)} /> {f}
                    </label>
                  ))}
                </span>
              </div>
            </div>
          );
        })}
        <h2>Time range</h2>
        <p class="muted">Only records whose time falls in this range (empty: all time).</p>
        <label>
          Since <input type="date" name="since" value={selection.since} />
        </label>
        <label>
          Until <input type="date" name="until" value={selection.until} />
        </label>
        <h2>Access lasts</h2>
        <select name="expires">
          {EXPIRY_CHOICES.map((choice) => (
            <option value={choice} selected={selection.expires === choice}>
              {EXPIRY_LABELS[choice]}
            </option>
          ))}
        </select>
        <div class="actions">
          <button class="primary" type="submit" name="decision" value="approve">
            Approve
          </button>
          <button type="submit" name="decision" value="deny">
            Deny
          </button>
        </div>
      </form>
    </Page>
  );
}
