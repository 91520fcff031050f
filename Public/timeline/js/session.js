// The sign-in screen: shown when there is no session or the store is locked. The password goes to
// POST /session, which unlocks the store when it is locked and sets an HttpOnly session cookie.

import { ApiError } from './api.js';
import { t } from './strings.js';

// Why the sign-in screen is shown: the string table's key and its English text.
const REASONS = {
  start: ['app.signin.reason.start', 'Enter the password to open the records.'],
  locked: ['app.signin.reason.locked', 'The record store is locked. Enter the password to unlock it.'],
  'signed-out': ['app.signin.reason.signed_out', 'You signed out. Enter the password to open the records again.'],
  expired: ['app.signin.reason.expired', 'Your session ended. Enter the password to go on.'],
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
    this.reasonShown = 'start';
    this.form.addEventListener('submit', (event) => { event.preventDefault(); this.signIn(); });
  }

  show(reason = 'start') {
    this.reasonShown = REASONS[reason] ? reason : 'start';
    this.error.textContent = '';
    this.password.removeAttribute('aria-invalid');
    this.screen.hidden = false;
    this.drawTexts();
    this.password.focus();
  }

  /** The texts the screen sets itself, from the string table (drawn again when the table changes). */
  drawTexts() {
    this.reason.textContent = t(...REASONS[this.reasonShown]);
    if (!this.submit.disabled) this.submit.textContent = t('app.signin.submit', 'Sign in');
    if (!this.screen.hidden) document.title = t('app.signin.title', 'Sign in — hreaderd');
  }

  hide() {
    this.screen.hidden = true;
    this.password.value = '';
  }

  async signIn() {
    const password = this.password.value;
    if (!password) {
      this.fail(t('app.signin.empty', 'Enter the password.'));
      return;
    }
    this.error.textContent = '';
    this.submit.disabled = true;
    this.submit.textContent = t('app.signin.unlocking', 'Unlocking…');
    try {
      await this.api.signIn(password);
      this.submit.textContent = t('app.signin.submit', 'Sign in');
      this.submit.disabled = false;
      this.hide();
      this.onSignedIn();
    } catch (error) {
      this.submit.textContent = t('app.signin.submit', 'Sign in');
      this.submit.disabled = false;
      if (!(error instanceof ApiError)) throw error;
      if (error.code === 'wrong_password') {
        this.fail(t('app.signin.wrong_password', 'That password does not unlock this store. Check it and try again.'));
      } else if (error.code === 'too_many_attempts') {
        this.wait(Number(error.retryAfter) || 5);
      } else {
        this.fail(t('app.signin.failed', 'Could not sign in: {reason}', { reason: error.message }));
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
        this.error.textContent = t('app.signin.try_again', 'You can try again now.');
        this.password.focus();
        return;
      }
      this.submit.disabled = true;
      this.error.textContent = left === 1
        ? t('app.signin.wait_one', 'Too many wrong passwords. Try again in 1 second.')
        : t('app.signin.wait', 'Too many wrong passwords. Try again in {seconds} seconds.', { seconds: left });
      left -= 1;
    };
    tick();
    this.countdown = setInterval(tick, 1000);
  }
}
