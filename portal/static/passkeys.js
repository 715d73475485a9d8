// Store Orders portal: passkeys (WebAuthn) through @simplewebauthn/browser, bundled with portal.js into the portal's one script.
import { browserSupportsWebAuthn, startAuthentication, startRegistration } from '@simplewebauthn/browser';

const message = document.getElementById('passkey-message');

function csrfToken() {
  const field = document.querySelector('input[name="_csrf"]');
  return field ? field.value : '';
}

async function postJson(url, body) {
  const response = await fetch(url, {
    method: 'POST',
    credentials: 'same-origin',
    headers: { 'content-type': 'application/json', 'csrf-token': csrfToken() },
    body: JSON.stringify(body),
  });
  let data = {};
  try {
    data = await response.json();
  } catch {
    // An HTML error page (403, 429): the status says enough.
  }
  return { ok: response.ok, status: response.status, data };
}

function say(text) {
  if (message) message.textContent = text;
}

const signInBox = document.querySelector('[data-passkey-sign-in]');
const registerBox = document.querySelector('[data-passkey-register]');
const confirmForm = document.querySelector('form[data-passkey-confirm]');
const reauthForms = document.querySelectorAll('form[data-passkey-reauth]');

if (browserSupportsWebAuthn()) {
  if (signInBox) {
    signInBox.hidden = false;
    document.getElementById('passkey-sign-in').addEventListener('click', async () => {
      say('');
      try {
        const options = await postJson('/passkeys/sign-in/options', {});
        if (!options.ok) return say(options.status === 429 ? 'Too many attempts. Try again in a few minutes.' : 'Passkey sign-in is not available right now.');
        const answer = await startAuthentication({ optionsJSON: options.data });
        const next = document.querySelector('input[name="next"]');
        const result = await postJson('/passkeys/sign-in', { response: answer, next: next ? next.value : '/' });
        if (result.ok) window.location.assign(result.data.redirect);
        else say(result.data.message || 'That passkey could not sign you in.');
      } catch {
        say('That passkey could not sign you in. Try again, or sign in with your email and password.');
      }
    });
  }
  if (registerBox) {
    registerBox.hidden = false;
    registerBox.addEventListener('submit', async (event) => {
      event.preventDefault();
      say('');
      try {
        const options = await postJson('/passkeys/register/options', {});
        // Signed in (or confirmed) too long ago: the form itself goes to the confirmation page, which comes back here.
        if (options.status === 401 && options.data.confirm) return registerBox.submit();
        if (!options.ok) return say('Passkeys are not available right now.');
        const answer = await startRegistration({ optionsJSON: options.data });
        const name = document.getElementById('passkey-name').value;
        const result = await postJson('/passkeys/register', { name, response: answer });
        if (result.status === 401 && result.data.confirm) return registerBox.submit();
        if (result.ok) window.location.assign(result.data.redirect);
        else say(result.data.message || 'The passkey could not be registered.');
      } catch {
        say('The passkey was not registered. Try again.');
      }
    });
  }
  // A sensitive action confirmed with a passkey instead of the password (the confirmation page, the email change).
  for (const form of reauthForms) {
    const box = form.querySelector('[data-passkey-reauth-box]');
    const button = form.querySelector('[data-passkey-reauth-button]');
    const field = form.querySelector('input[name="confirmPasskey"]');
    const note = form.querySelector('[data-passkey-reauth-message]');
    const tell = (text) => {
      if (note) note.textContent = text;
    };
    if (!box || !button || !field) continue;
    box.hidden = false;
    button.addEventListener('click', async () => {
      tell('');
      try {
        const options = await postJson('/passkeys/sign-in/options', {});
        if (!options.ok) return tell(options.status === 429 ? 'Too many attempts. Try again in a few minutes.' : 'Passkeys are not available right now.');
        const answer = await startAuthentication({ optionsJSON: options.data });
        field.value = JSON.stringify(answer);
        for (const password of form.querySelectorAll('input[type="password"]')) password.value = '';
        form.submit();
      } catch {
        tell('Your passkey did not confirm it is you. Try again, or type your password.');
      }
    });
  }
  if (confirmForm) {
    // A reset the user asked for, of a user with a passkey: the form goes with an assertion of one of their passkeys.
    const field = confirmForm.querySelector('input[name="passkey"]');
    confirmForm.addEventListener('submit', async (event) => {
      event.preventDefault();
      say('');
      try {
        const options = await postJson('/passkeys/sign-in/options', {});
        if (!options.ok) return say(options.status === 429 ? 'Too many attempts. Try again in a few minutes.' : 'Passkeys are not available right now.');
        const answer = await startAuthentication({ optionsJSON: options.data });
        field.value = JSON.stringify(answer);
        confirmForm.submit();
      } catch {
        say('Your passkey did not confirm the reset. Try again.');
      }
    });
  }
}
