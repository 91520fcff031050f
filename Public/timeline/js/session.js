// The sign-in screen: shown when there is no session or the store is locked. The password goes to
// POST /session, which unlocks the store when it is locked and sets an HttpOnly session cookie.

import { ApiError } from './api.js';

const REASONS = {
  start: 'Enter the password to open the records.',
  locked: 'The record store is locked. Enter the password to unlock it.',
  'signed-out': 'You signed out. Enter the password to open the records again.',
  expired: 'Your session ended. Enter the password to go on.',
};

export class SignIn {
  constructor({ api, onSignedIn }) {
    this.api = api;
    this.onSignedIn = onSignedIn;
    this.screen = document.getElementById('signin');
    this.form = document.getElementById('signin-form');
    this.password = document.getElementById('signin-password');
    this.error = document.getElementById('signin-error');
    this.reason = document.getElementById('signin-reason');
    this.submit = document.getElementById('signin-submit');
    this.countdown = 0;
    this.form.addEventListener('submit', (event) => { event.preventDefault(); this.signIn(); });
  }

  show(reason = 'start') {
    this.reason.textContent = REASONS[reason] || REASONS.start;
    this.error.textContent = '';
    this.password.removeAttribute('aria-invalid');
    this.screen.hidden = false;
    document.title = 'Sign in — hreaderd';
    this.password.focus();
  }

  hide() {
    this.screen.hidden = true;
    this.password.value = '';
  }

  async signIn() {
    const password = this.password.value;
    if (!password) {
      this.fail('Enter the password.');
      return;
    }
    this.error.textContent = '';
    this.submit.disabled = true;
    this.submit.textContent = 'Unlocking…';
    try {
      await this.api.signIn(password);
      this.submit.textContent = 'Sign in';
      this.submit.disabled = false;
      this.hide();
      this.onSignedIn();
    } catch (error) {
      this.submit.textContent = 'Sign in';
      this.submit.disabled = false;
      if (!(error instanceof ApiError)) throw error;
      if (error.code === 'wrong_password') {
        this.fail('That password does not unlock this store. Check it and try again.');
      } else if (error.code === 'too_many_attempts') {
        this.wait(Number(error.retryAfter) || 5);
      } else {
        this.fail(`Could not sign in: ${error.message}`);
      }
    }
  }

  fail(message) {
    this.error.textContent = message;
    this.password.setAttribute('aria-invalid', 'true');
    this.password.select();
    this.password.focus();
  }

  /** After too many wrong passwords the daemon says how long to wait; count it down. */
  wait(seconds) {
    clearInterval(this.countdown);
    let left = seconds;
    const tick = () => {
      if (left <= 0) {
        clearInterval(this.countdown);
        this.submit.disabled = false;
        this.error.textContent = 'You can try again now.';
        this.password.focus();
        return;
      }
      this.submit.disabled = true;
      this.error.textContent = `Too many wrong passwords. Try again in ${left} second${left === 1 ? '' : 's'}.`;
      left -= 1;
    };
    tick();
    this.countdown = setInterval(tick, 1000);
  }
}
