// The shared page frame of the owner web app: document head, the nonce'd stylesheet, the console
// navigation with its CSRF-protected sign-out form.
import type { Child } from "hono/jsx";

const CSS = `
:root { color-scheme: light dark; --fg: #1b1f24; --muted: #5b6570; --line: #d8dee4; --bg: #ffffff;
  --panel: #f6f8fa; --accent: #0b5fff; --danger: #b42318; --ok: #067647; }
@media (prefers-color-scheme: dark) { :root { --fg: #e6edf3; --muted: #9aa7b3; --line: #30363d;
  --bg: #0d1117; --panel: #161b22; --accent: #5b9bff; --danger: #ff7b72; --ok: #56d364; } }
* { box-sizing: border-box; }
body { margin: 0; font: 15px/1.5 system-ui, -apple-system, "Segoe UI", sans-serif; color: var(--fg); background: var(--bg); }
header { display: flex; align-items: center; gap: 1.5rem; padding: .75rem 1.5rem; border-bottom: 1px solid var(--line); }
header .brand { font-weight: 700; letter-spacing: .02em; }
header nav { display: flex; gap: 1rem; flex: 1; }
header nav a { color: var(--muted); text-decoration: none; }
header nav a[aria-current="page"] { color: var(--fg); font-weight: 600; }
main { max-width: 980px; margin: 0 auto; padding: 1.5rem; }
h1 { font-size: 1.4rem; margin: 0 0 1rem; }
h2 { font-size: 1.1rem; margin: 1.5rem 0 .5rem; }
p.muted, .muted { color: var(--muted); }
table { border-collapse: collapse; width: 100%; margin: .5rem 0 1rem; }
th, td { text-align: left; padding: .45rem .6rem; border-bottom: 1px solid var(--line); vertical-align: top; }
th { font-size: .8rem; text-transform: uppercase; letter-spacing: .04em; color: var(--muted); }
code { font: 13px/1.4 ui-monospace, SFMono-Regular, Menlo, monospace; }
.panel { background: var(--panel); border: 1px solid var(--line); border-radius: 8px; padding: 1rem 1.25rem; margin: 1rem 0; }
.narrow { max-width: 420px; margin: 3rem auto; }
.narrow.wide { max-width: 640px; }
td.reads { white-space: nowrap; }
label { display: block; margin: .35rem 0; }
input[type=password], input[type=date], select { font: inherit; padding: .4rem .5rem; border: 1px solid var(--line);
  border-radius: 6px; background: var(--bg); color: var(--fg); }
input[type=password] { width: 100%; }
button { font: inherit; padding: .45rem 1rem; border-radius: 6px; border: 1px solid var(--line); background: var(--panel);
  color: var(--fg); cursor: pointer; }
button.primary { background: var(--accent); border-color: var(--accent); color: #fff; }
button.danger { color: var(--danger); }
.actions { display: flex; gap: .75rem; margin-top: 1rem; }
.stream { border: 1px solid var(--line); border-radius: 8px; padding: .35rem .9rem; margin: .4rem 0; }
.stream > label.head { font-weight: 600; }
.stream .detail { margin-left: 1.6rem; display: grid; grid-template-columns: 8rem 1fr; gap: 0 .75rem; }
.row { display: flex; flex-wrap: wrap; align-items: center; gap: .4rem 1.2rem; margin: .4rem 0; }
.row label { margin: 0; }
.stream .detail label { display: inline-block; margin: 0 .9rem 0 0; font-weight: 400; }
.stream .off { display: none; font-weight: 400; color: var(--muted); }
.stream:has(> .head input:not(:checked)) > .detail { display: none; }
.stream:has(> .head input:not(:checked)) .off { display: inline; }
.stream:has(> .head input:not(:checked)) .label { color: var(--muted); text-decoration: line-through; }
.count { color: var(--muted); font-weight: 400; font-variant-numeric: tabular-nums; }
details.fields summary { cursor: pointer; }
details.fields .some { display: none; }
details.fields:has(input:not(:checked)) .all { display: none; }
details.fields:has(input:not(:checked)) .some { display: inline; }
.fieldlist { columns: 4 10rem; margin-top: .3rem; }
.fieldlist label { display: block; }
a.button { display: inline-block; padding: .45rem 1rem; border-radius: 6px; border: 1px solid var(--line);
  background: var(--panel); text-decoration: none; color: var(--fg); }
a.button.danger { color: var(--danger); }
svg.chart { display: block; }
svg.chart .bar { fill: var(--accent); }
svg.chart .axis { stroke: var(--line); }
svg.chart text { fill: var(--muted); font-size: 10px; }
.error { color: var(--danger); font-weight: 600; }
.ok { color: var(--ok); }
.tag { display: inline-block; padding: 0 .4rem; border-radius: 4px; background: var(--panel); border: 1px solid var(--line); font-size: .8rem; }
form.inline { display: inline; }
`;

export type Section = "grants" | "access-log" | "connections";

export function Page(props: {
  title: string;
  nonce: string;
  /** The console sections with a sign-out form; absent on sign-in pages. */
  nav?: { current: Section | null; csrf: string };
  children?: Child;
}) {
  const links: [Section, string, string][] = [
    ["grants", "/console", "Grants"],
    ["access-log", "/console/access-log", "Access log"],
    ["connections", "/console/connections", "Connections"],
  ];
  return (
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>{`${props.title} · pdpp`}</title>
        <link rel="icon" href="/favicon.svg" type="image/svg+xml" />
        <style nonce={props.nonce} dangerouslySetInnerHTML={{ __html: CSS }} />
      </head>
      <body>
        <header>
          <span class="brand">pdpp</span>
          {props.nav ? (
            <>
              <nav>
                {links.map(([section, href, label]) => (
                  <a href={href} aria-current={props.nav?.current === section ? "page" : undefined}>
                    {label}
                  </a>
                ))}
              </nav>
              <form class="inline" method="post" action="/signout">
                <input type="hidden" name="_csrf" value={props.nav.csrf} />
                <button type="submit">Sign out</button>
              </form>
            </>
          ) : null}
        </header>
        <main>{props.children}</main>
      </body>
    </html>
  );
}
