import { findJavaHome, type JavaProbes } from './java.ts';

const probes = (majors: Record<string, number | undefined>, pathHome?: string): JavaProbes => ({
  jvmDirs: () => Object.keys(majors).filter((home) => home.startsWith('/usr/lib/jvm/')),
  pathJavaHome: () => pathHome,
  major: (home) => majors[home],
});

describe('the Java for Elasticsearch and S3Proxy', () => {
  it('takes ES_JAVA_HOME as it is', () => {
    expect(findJavaHome('/opt/jdk', probes({ '/usr/lib/jvm/temurin-25': 25 }))).toBe('/opt/jdk');
  });

  it('takes the newest JDK of at least 21, never Debian 12 own 17', () => {
    const machine = probes({
      '/usr/lib/jvm/java-17-openjdk-amd64': 17,
      '/usr/lib/jvm/temurin-25-jdk-amd64': 25,
      '/usr/lib/jvm/java-21-openjdk-amd64': 21,
      '/usr/lib/jvm/broken': undefined,
    });
    expect(findJavaHome(undefined, machine)).toBe('/usr/lib/jvm/temurin-25-jdk-amd64');
  });

  it('falls back to the java on PATH when it is new enough', () => {
    expect(
      findJavaHome(undefined, probes({ '/usr/lib/jvm/java-17': 17, '/opt/jdk-22': 22 }, '/opt/jdk-22')),
    ).toBe('/opt/jdk-22');
    expect(
      findJavaHome(undefined, probes({ '/usr/lib/jvm/java-17': 17, '/opt/jdk-17': 17 }, '/opt/jdk-17')),
    ).toBe(undefined);
  });
});
