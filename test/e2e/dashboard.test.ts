import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { resolve } from 'node:path';
import { chromium, type Browser } from 'playwright-core';
import { JobQueues } from '@app/shared/queue/job-queues.service';
import { receiverKey } from '@app/shared/net/receiver-url';
import { QUEUES, receiverQueueName } from '@app/shared/queue/queues';
import {
  DASHBOARD_LOGIN_FAILURES,
  DASHBOARD_LOGIN_WINDOW_SECONDS,
} from '@app/api/admin/dashboard-login-limit';
import { bootSystem } from '../support/boot';
import { token } from '../support/system';
import { webhookEnv } from '../support/webhook-receiver';

const ADMIN = { username: 'queue-admin', password: 'dashboard-password-1' };
/** A receiver (nothing listens there): its deliveries get a queue of their own on the dashboard. */
const RECEIVER = 'http://127.0.0.1:9/hooks?token=receiver-token';
const SCREENSHOT = resolve(__dirname, '../../docs/queue-dashboard.png');

const basic = (username: string, password: string) => ({
  authorization: `Basic ${Buffer.from(`${username}:${password}`).toString('base64')}`,
});

/**
 * `GET url` sent from the loopback address `from`: every 127.x.y.z is a client address of its own
 * to the API, so one test's failures do not count against the browser's (127.0.0.1).
 */
function getFrom(
  from: string,
  url: string,
  headers: Record<string, string>,
): Promise<{ status: number; headers: IncomingHttpHeaders; body: string }> {
  return new Promise((done, fail) => {
    const sent = httpRequest(url, { localAddress: from, headers, timeout: 15_000 }, (response) => {
      let body = '';
      response.on('data', (chunk: Buffer) => (body += chunk.toString()));
      response.on('end', () => done({ status: response.statusCode!, headers: response.headers, body }));
    });
    sent.on('timeout', () => sent.destroy(new Error(`no answer from ${url}`)));
    sent.on('error', fail);
    sent.end();
  });
}

/** Bull Board in Debian's Chromium, driven by playwright-core, as an admin and as strangers. */
describe('queue dashboard', () => {
  let browser: Browser;
  let url: string;
  const boot = bootSystem({
    reset: false,
    redis: 'own',
    seed: async (context) => {
      // Some jobs to count: delayed purges far in the future, and a failed one.
      const queues = new JobQueues({ ...context.config, REDIS_URL: boot.redis.url });
      for (const id of ['1', '2', '3']) {
        await queues.ensureDeletionJob(`0000000${id}-0000-4000-8000-000000000000`, 86_400_000);
      }
      await queues.close();
    },
    system: {
      env: { ...webhookEnv([RECEIVER]), ADMIN_USERNAME: ADMIN.username, ADMIN_PASSWORD: ADMIN.password },
      worker: false,
    },
  });

  beforeAll(async () => {
    url = `${boot.system.api}/admin/queues`;
    browser = await chromium.launch({
      executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--disable-background-networking',
        '--disable-component-update',
        '--no-first-run',
      ],
    });
  }, 60_000);
  afterAll(() => browser?.close());

  it('refuses a visitor without credentials, with wrong ones, or without the admin role', async () => {
    // Headless Chromium cannot ask for a password: a Basic challenge it cannot answer ends the navigation.
    const page = await browser.newPage();
    await expect(page.goto(url)).rejects.toThrow(/ERR_INVALID_AUTH_CREDENTIALS/);
    await page.close();
    const bare = await fetch(url);
    expect(bare.status).toBe(401);
    expect(bare.headers.get('content-type')).toMatch(/^application\/problem\+json/);

    const wrong = await browser.newContext({
      httpCredentials: { username: ADMIN.username, password: 'nope-nope-nope' },
    });
    expect((await (await wrong.newPage()).goto(url))?.status()).toBe(401);
    await wrong.close();
    expect((await fetch(url, { headers: basic(ADMIN.username, 'nope-nope-nope') })).status).toBe(401);

    // A cookie whose percent-encoding is broken is no token: 401, not an error page.
    const broken = await fetch(url, { headers: { cookie: 'admin_token=%E0%A4%A' } });
    expect(broken.status).toBe(401);
    expect(broken.headers.get('content-type')).toMatch(/^application\/problem\+json/);

    const user = await browser.newContext();
    await user.addCookies([{ name: 'admin_token', value: token('just-a-user'), url: boot.system.api }]);
    expect((await (await user.newPage()).goto(url))?.status()).toBe(403);
    await user.close();
  }, 60_000);

  it('shows every queue with its counts to an admin signed in with the dashboard credentials', async () => {
    const admin = await browser.newContext({
      httpCredentials: ADMIN,
      viewport: { width: 1280, height: 800 },
    });
    const page = await admin.newPage();
    expect((await page.goto(url))?.status()).toBe(200);
    for (const queue of [...Object.values(QUEUES), receiverQueueName(receiverKey(RECEIVER))]) {
      await page.getByText(queue, { exact: false }).first().waitFor({ timeout: 20_000 });
    }
    expect(await page.locator('body').innerText()).not.toContain('receiver-token');
    // The receiver's queue page names it as rows show it: no query value.
    const receiverPage = await admin.newPage();
    await receiverPage.goto(`${url}/queue/${encodeURIComponent(receiverQueueName(receiverKey(RECEIVER)))}`);
    await receiverPage
      .getByText('webhook deliveries to http://127.0.0.1:9/hooks?token=***')
      .first()
      .waitFor();
    expect(await receiverPage.locator('body').innerText()).not.toContain('receiver-token');
    await receiverPage.close();
    // The deletion queue's card shows its three delayed jobs.
    await page
      .getByText(/delayed/i)
      .first()
      .waitFor();
    expect(await page.locator('body').innerText()).toMatch(/3/);
    await page.screenshot({ path: SCREENSHOT, fullPage: true });
    await admin.close();
  }, 60_000);

  it('lets in an admin JWT from the admin_token cookie', async () => {
    const admin = await browser.newContext();
    await admin.addCookies([{ name: 'admin_token', value: token('root', ['admin']), url: boot.system.api }]);
    const page = await admin.newPage();
    expect((await page.goto(url))?.status()).toBe(200);
    await page.getByText(QUEUES.deletion).first().waitFor({ timeout: 20_000 });
    await admin.close();
  }, 60_000);

  it('answers 429 with Retry-After to an address that sent too many wrong passwords, even for the right one', async () => {
    const guesser = '127.0.0.2';
    const wrong = basic(ADMIN.username, 'guess-guess-guess');
    for (let i = 0; i < DASHBOARD_LOGIN_FAILURES; i += 1) {
      expect((await getFrom(guesser, url, wrong)).status).toBe(401);
    }
    const refused = await getFrom(guesser, url, wrong);
    expect(refused.status).toBe(429);
    expect(refused.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(JSON.parse(refused.body)).toMatchObject({ status: 429, title: 'Too Many Requests' });
    const retryAfter = Number(refused.headers['retry-after']);
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(DASHBOARD_LOGIN_WINDOW_SECONDS);
    // Guessing learns nothing while refused: the right password gets the same 429.
    expect((await getFrom(guesser, url, basic(ADMIN.username, ADMIN.password))).status).toBe(429);

    // Another address still signs in, and an admin token is no password: it still gets in from there.
    expect((await getFrom('127.0.0.3', url, basic(ADMIN.username, ADMIN.password))).status).toBe(200);
    const admin = { authorization: `Bearer ${token('root', ['admin'])}` };
    expect((await getFrom(guesser, url, admin)).status).toBe(200);
  }, 60_000);

  it('counts guesses sent together before checking any: of 40 at once, at most the limit are checked', async () => {
    const guesser = '127.0.0.4';
    const wrong = basic(ADMIN.username, 'guess-together');
    const answers = await Promise.all(Array.from({ length: 40 }, () => getFrom(guesser, url, wrong)));
    const statuses = answers.map((answer) => answer.status);
    expect(statuses.filter((status) => status === 401)).toHaveLength(DASHBOARD_LOGIN_FAILURES);
    expect(statuses.filter((status) => status === 429)).toHaveLength(40 - DASHBOARD_LOGIN_FAILURES);
    // A right password from the same address is refused too, and one from elsewhere is not counted against it.
    expect((await getFrom(guesser, url, basic(ADMIN.username, ADMIN.password))).status).toBe(429);
  }, 60_000);

  it('does not count right passwords: an admin signs in more often than the limit', async () => {
    const right = basic(ADMIN.username, ADMIN.password);
    for (let i = 0; i < DASHBOARD_LOGIN_FAILURES + 5; i += 1) {
      expect((await getFrom('127.0.0.5', url, right)).status).toBe(200);
    }
  }, 60_000);
});
