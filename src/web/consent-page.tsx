// The consent page = the grant editor: who asks (the client's self-declared name, isolated, and
// where it sends you back), then streams with their record counts, connections, fields (folded
// per stream, all by default), a time range, an expiry, whether later additions are shared, and
// Approve / Deny. It runs no script: CSS alone folds away an unticked stream's details (the server
// ignores them too, so what is posted is what the page shows).
import { cleanDisplayName } from "../core/display-name.js";
import { type CatalogStream, totalRecords } from "./catalog.js";
import type { PendingAuthorizationView } from "./consent-backend.js";
import { type ConsentSelection, EXPIRY_CHOICES, suggestedStreams } from "./consent-form.js";
import { Page } from "./layout.js";

const EXPIRY_LABELS: Record<string, string> = {
  "1": "1 day",
  "7": "7 days",
  "30": "30 days",
  "90": "90 days",
  never: "until I revoke it",
};

const number = new Intl.NumberFormat("en");

function records(n: number): string {
  return `${number.format(n)} record${n === 1 ? "" : "s"}`;
}

function StreamChoice(props: { s: CatalogStream; selection: ConsentSelection }) {
  const { s, selection } = props;
  const conns = selection.connections(s.key);
  const fields = selection.fields(s.key);
  const allFields = s.fields.every((f) => fields.has(f));
  return (
    <div class="stream" id={`stream-${s.key.replace("/", "-")}`}>
      <label class="head">
        <input type="checkbox" name="stream" value={s.key} checked={selection.streams.has(s.key)} />{" "}
        <span class="label">{s.label}</span> <span class="count">· {records(totalRecords(s))}</span>
        {s.description ? <span class="muted"> · {s.description}</span> : null}
        <span class="off"> · not shared</span>
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
              {c.display_name} <span class="count">({number.format(s.counts[c.connection_id] ?? 0)})</span>
            </label>
          ))}
        </span>
        <span class="muted">Fields</span>
        <details class="fields" open={!allFields}>
          <summary>
            <span class="all">all {s.fields.length} fields</span>
            <span class="some">some of {s.fields.length} fields</span> <span class="muted">(choose)</span>
          </summary>
          <div class="fieldlist">
            {s.fields.map((f) => (
              <label>
                <input type="checkbox" name={`field:${s.key}`} value={f} checked={fields.has(f)} /> {f}
              </label>
            ))}
          </div>
        </details>
      </div>
    </div>
  );
}

export function ConsentPage(props: {
  nonce: string;
  csrf: string;
  pending: PendingAuthorizationView;
  catalog: CatalogStream[];
  selection: ConsentSelection;
  error?: string;
}) {
  const { pending, selection } = props;
  const name = cleanDisplayName(pending.clientName, pending.redirectHost);
  const suggested = suggestedStreams(props.catalog, pending.requestedScope);
  return (
    <Page title="Authorize access" nonce={props.nonce} nav={{ current: null, csrf: props.csrf }}>
      <h1>
        <bdi id="client-name">{name}</bdi> wants to read your data
      </h1>
      <div class="panel">
        <div>
          It sends you back to <strong id="redirect-host">{pending.redirectHost}</strong> when you answer.
        </div>
        <div class="muted">
          “<bdi>{name}</bdi>” is the name the app gave itself; pdpp has not verified it. Client id{" "}
          <code>{pending.clientId}</code>
        </div>
        {suggested.length > 0 ? (
          <div class="muted">It suggested: {suggested.map((s) => s.label).join(", ")}</div>
        ) : null}
        <div class="muted">
          Access is read-only. Choose exactly what it may read; you can revoke it any time.
        </div>
      </div>
      {props.error ? <p class="error">{props.error}</p> : null}
      <form method="post" action={`/consent/${pending.id}`}>
        <input type="hidden" name="_csrf" value={props.csrf} />
        <h2>Streams</h2>
        {props.catalog.length === 0 ? <p class="muted">There is no data to share yet.</p> : null}
        {props.catalog.map((s) => (
          <StreamChoice s={s} selection={selection} />
        ))}
        <h2>Time range and duration</h2>
        <div class="row">
          <label>
            Since <input type="date" name="since" value={selection.since} />
          </label>
          <label>
            Until <input type="date" name="until" value={selection.until} />
          </label>
          <span class="muted">Only records whose time falls in this range (empty: all time).</span>
        </div>
        <div class="row">
          <label>
            Access lasts{" "}
            <select name="expires">
              {EXPIRY_CHOICES.map((choice) => (
                <option value={choice} selected={selection.expires === choice}>
                  {EXPIRY_LABELS[choice]}
                </option>
              ))}
            </select>
          </label>
        </div>
        <label class="row">
          <input type="checkbox" name="future" value="yes" checked={selection.future} /> Also share
          connections and fields added later to the streams above{" "}
          <span class="muted">
            (off: it reads only what is ticked here, even after you import another account or a connector
            gains fields)
          </span>
        </label>
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
