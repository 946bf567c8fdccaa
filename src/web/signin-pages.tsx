// The sign-in pages: the passphrase form, the one-time link's confirm button, and the answers to a
// failed or throttled attempt (worded the same whatever the reason, so they reveal nothing).
import { Page } from "./layout.js";

export function SignInPage(props: { nonce: string; csrf: string; next: string; error?: string }) {
  return (
    <Page title="Sign in" nonce={props.nonce}>
      <div class="panel narrow">
        <h1>Sign in as the owner</h1>
        {props.error ? <p class="error">{props.error}</p> : null}
        <form method="post" action="/signin">
          <input type="hidden" name="_csrf" value={props.csrf} />
          <input type="hidden" name="next" value={props.next} />
          <label for="passphrase">Passphrase</label>
          <input
            id="passphrase"
            type="password"
            name="passphrase"
            autocomplete="current-password"
            required
            autofocus
          />
          <div class="actions">
            <button class="primary" type="submit">
              Sign in
            </button>
          </div>
        </form>
        <p class="muted">
          Set the passphrase with <code>pdpp owner passphrase</code>, or run <code>pdpp console</code> for a
          one-time sign-in link.
        </p>
      </div>
    </Page>
  );
}

export function SignInLinkPage(props: { nonce: string; csrf: string; token: string; error?: string }) {
  return (
    <Page title="Sign in" nonce={props.nonce}>
      <div class="panel narrow">
        <h1>Sign in with a one-time link</h1>
        {props.error ? (
          <p class="error">{props.error}</p>
        ) : (
          <form method="post" action="/signin/link">
            <input type="hidden" name="_csrf" value={props.csrf} />
            <input type="hidden" name="token" value={props.token} />
            <p>This link signs this browser in as the owner of this pdpp server, once.</p>
            <div class="actions">
              <button class="primary" type="submit">
                Sign in
              </button>
            </div>
          </form>
        )}
        <p class="muted">
          Run <code>pdpp console</code> for a new link, or <a href="/signin">sign in with the passphrase</a>.
        </p>
      </div>
    </Page>
  );
}

export function MessagePage(props: { nonce: string; title: string; message: string }) {
  return (
    <Page title={props.title} nonce={props.nonce}>
      <div class="panel narrow">
        <h1>{props.title}</h1>
        <p>{props.message}</p>
        <p>
          <a href="/console">Back to the console</a>
        </p>
      </div>
    </Page>
  );
}
