import { createHash } from 'node:crypto';
import { receiverKey, shownUrl } from './receiver-url';

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

describe('shownUrl', () => {
  it.each([
    ['https://hooks:s3cret@receiver.example/in', 'https://receiver.example/in'],
    ['https://:s3cret@receiver.example/in', 'https://receiver.example/in'],
    ['https://receiver.example/in?token=t0ken&v=2', 'https://receiver.example/in?token=***&v=***'],
    ['https://receiver.example/in?t0ken', 'https://receiver.example/in?***'],
    ['https://u:p@receiver.example:8443/in?a=1=2#frag', 'https://receiver.example:8443/in?a=***'],
    ['http://receiver.example/in#s3cret', 'http://receiver.example/in'],
  ])('shows %s as %s', (url, shown) => {
    expect(shownUrl(url)).toBe(shown);
  });

  it('leaves a URL with nothing to hide exactly as written', () => {
    expect(shownUrl('HTTP://Receiver.example:80/in')).toBe('HTTP://Receiver.example:80/in');
  });
});

describe('receiverKey', () => {
  it('is the SHA-256 of the URL as written when it holds no credentials, as before', () => {
    expect(receiverKey('https://receiver.example/in?token=t0ken')).toBe(
      sha256('https://receiver.example/in?token=t0ken'),
    );
  });

  it('leaves credentials out, so a new password keeps the key', () => {
    const key = receiverKey('https://hooks:s3cret@receiver.example/in');
    expect(key).toBe(sha256('https://receiver.example/in'));
    expect(receiverKey('https://hooks:n3w@receiver.example/in')).toBe(key);
  });

  it('keeps receivers that differ in a query value apart', () => {
    expect(receiverKey('https://receiver.example/in?tenant=a')).not.toBe(
      receiverKey('https://receiver.example/in?tenant=b'),
    );
  });
});
