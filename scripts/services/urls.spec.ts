import { base, hostPort, isLocalHost, parseUrl, redact } from './urls.ts';

describe('URLs of the services', () => {
  it('reads user, password, host, port and path, decoding them', () => {
    expect(parseUrl('mysql://app:p%40ss%3Aw@127.0.0.1:3307/videos_v')).toEqual({
      scheme: 'mysql',
      user: 'app',
      password: 'p@ss:w',
      host: '127.0.0.1',
      port: '3307',
      path: 'videos_v',
    });
    expect(parseUrl('redis://[::1]:6394')).toMatchObject({ host: '::1', port: '6394', user: '' });
    expect(parseUrl('http://127.0.0.1')).toMatchObject({ port: '' });
  });

  it('names a URL it cannot read', () => {
    expect(() => parseUrl('not a url')).toThrow('cannot parse URL: not a url');
  });

  it('hides passwords in what it prints', () => {
    expect(redact('mysql://root:secret@127.0.0.1:3306/videos')).toBe(
      'mysql://root:***@127.0.0.1:3306/videos',
    );
    expect(redact('redis://:secret@127.0.0.1:6379')).toBe('redis://:***@127.0.0.1:6379');
    expect(redact('mysql://root@127.0.0.1:3306/videos')).toBe('mysql://root@127.0.0.1:3306/videos');
  });

  it('starts servers only for addresses of this machine', () => {
    for (const host of ['127.0.0.1', '127.1.2.3', 'localhost', '::1', '0.0.0.0', '::']) {
      expect(isLocalHost(host)).toBe(true);
    }
    for (const host of ['10.0.0.5', 'db.example.com', '192.168.1.2']) expect(isLocalHost(host)).toBe(false);
  });

  it('brackets IPv6 hosts and drops trailing slashes', () => {
    expect(hostPort('::1', 9300)).toBe('[::1]:9300');
    expect(hostPort('127.0.0.1', 9300)).toBe('127.0.0.1:9300');
    expect(base('http://127.0.0.1:9200/ ')).toBe('http://127.0.0.1:9200');
  });
});
