/**
 * Deployment files that can be checked without a container engine:
 * docker-compose.yml validates, and the compose router's script builds the
 * PELS queues on a veth in network namespaces and sorts packets by DSCP.
 */
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { expect, test } from '@playwright/test';
import { parseQdiscStats } from '../src/net/pelsBottleneck';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const SCRIPT = `${ROOT}/docker/pels-router.sh`;

function sh(cmd: string, args: string[], env: Record<string, string> = {}): { code: number; out: string; err: string } {
  const r = spawnSync(cmd, args, { cwd: ROOT, env: { ...process.env, ...env }, encoding: 'utf8' });
  return { code: r.status ?? -1, out: r.stdout, err: r.stderr };
}

/** The compose CLI: Docker's plugin where installed, else Debian's docker-compose (installed by scripts/setup.sh). */
const COMPOSE: string[] | null =
  sh('docker', ['compose', 'version']).code === 0 ? ['docker', 'compose'] : sh('docker-compose', ['version']).code === 0 ? ['docker-compose'] : null;

function compose(args: string[], env: Record<string, string> = {}): { code: number; out: string; err: string } {
  const [cmd, ...pre] = COMPOSE!;
  return sh(cmd!, [...pre, ...args], env);
}

/** The resolved compose file as data (the compose CLI prints YAML; Debian's docker-compose brings python3-yaml). */
function composeConfig(args: string[], env: Record<string, string> = {}): { services: Record<string, Record<string, unknown>> } {
  const r = compose([...args, 'config'], env);
  if (r.code !== 0) throw new Error(r.err);
  const json = spawnSync('python3', ['-c', 'import sys, json, yaml; print(json.dumps(yaml.safe_load(sys.stdin)))'], { input: r.out, encoding: 'utf8' });
  if (json.status !== 0) throw new Error(`cannot read the compose YAML: ${json.stderr}`);
  return JSON.parse(json.stdout) as { services: Record<string, Record<string, unknown>> };
}
const pythonYaml = spawnSync('python3', ['-c', 'import yaml']).status === 0;

test.describe('docker compose', () => {
  test.skip(COMPOSE === null, 'neither `docker compose` nor `docker-compose` is installed');

  test('docker-compose.yml validates, with and without the router profile', () => {
    for (const args of [['config', '-q'], ['--profile', 'router', 'config', '-q']]) {
      const r = compose(args);
      expect(r.code, r.err).toBe(0);
    }
    // (docker-compose 1 lists every service here, whatever the profiles.)
    const services = compose(['--profile', 'router', 'config', '--services']).out.trim().split('\n').sort();
    expect(services).toEqual(expect.arrayContaining(['router', 'server']));
    // The resolved file: the server may mark DSCP, the router shares the server's network stack.
    const config = compose(['--profile', 'router', 'config']).out;
    expect(config).toMatch(/server:[\s\S]*cap_add:\s*\n\s*- NET_ADMIN/);
    expect(config).toMatch(/network_mode: service:server/);
    // The operator's streams, gains and generated token are on a named volume at the image's STATE_DIR: they outlive the container.
    const stateDir = /^ENV STATE_DIR=(\S+)$/m.exec(readFileSync(`${ROOT}/Dockerfile`, 'utf8'))?.[1];
    expect(stateDir).toBeDefined();
    expect(config).toMatch(new RegExp(`server:[\\s\\S]*volumes:\\s*\\n\\s*- pels-state:${stateDir}`));
  });

  test('the server publishes exactly HTTP, the one media port (UDP and TCP, as RTC_PORT in the image says) and the publishers\' RTMP and SRT ports; TLS files are mounted read-only', () => {
    test.skip(!pythonYaml, 'python3-yaml is not installed');
    const server = composeConfig([]).services.server!;
    const env = server.environment as Record<string, string>;
    const ports = (server.ports as { protocol: string; published: number | string; target: number }[]).map((p) => `${p.published}:${p.target}/${p.protocol}`);
    const rtcPort = /^ENV .*\bRTC_PORT=(\d+)/m.exec(readFileSync(`${ROOT}/Dockerfile`, 'utf8'))?.[1];
    expect(rtcPort).toBe('40000');
    expect(ports.sort()).toEqual(['1935:1935/tcp', '40000:40000/tcp', '40000:40000/udp', '8080:8080/tcp', '8890:8890/udp']);
    expect(readFileSync(`${ROOT}/Dockerfile`, 'utf8')).toMatch(/^EXPOSE 8080\/tcp 40000\/udp 40000\/tcp 1935\/tcp 8890\/udp$/m);
    // The listeners stay off unless the operator turns them on.
    expect(env).toMatchObject({ RTMP: 'off', SRT: 'off', WHIP: 'off' });
    for (const name of ['TLS_CERT_FILE', 'TLS_KEY_FILE', 'ICE_SERVERS', 'TURN_URL', 'TURN_SECRET']) expect(env).toHaveProperty(name, '');
    expect(JSON.stringify(server.volumes)).toMatch(/\/etc\/pels\/tls/);
    expect(JSON.stringify(server.volumes)).toMatch(/"read_only":true|:ro"/);
  });

  test("the cluster profile: Redis with a password on the cluster network only, an origin (the front) and two edges, each edge's pipes announced on the cluster network and its own media port published as announced", () => {
    test.skip(!pythonYaml, 'python3-yaml is not installed');
    const services = composeConfig(['--profile', 'cluster'], { PELS_PUBLIC_IP: '203.0.113.7', CLUSTER_TOKEN: 'c'.repeat(32), REDIS_PASSWORD: 'r'.repeat(32) }).services;
    const { redis, origin, edge1, edge2 } = services;
    expect(redis && origin && edge1 && edge2).toBeTruthy();
    expect(redis!.ports).toBeUndefined();
    // What the container runs: compose's `$$` is a `$` there.
    const redisScript = (redis!.entrypoint as string[]).join(' ').replaceAll('$$', '$');
    expect(redisScript).toMatch(/test -n "\$REDIS_PASSWORD" \|\|[\s\S]*exit 1/);
    expect(redisScript).toContain('--requirepass "$REDIS_PASSWORD"');
    const env = (s: Record<string, unknown>) => s.environment as Record<string, string>;
    const clusterIp = (s: Record<string, unknown>) => (s.networks as { cluster: { ipv4_address: string } }).cluster.ipv4_address;
    const redisUrl = `redis://${clusterIp(redis!)}:6379`;
    expect(env(origin!)).toMatchObject({ ROLE: 'origin', REDIS_URL: redisUrl, REDIS_PASSWORD: 'r'.repeat(32), CLUSTER_TOKEN: 'c'.repeat(32), PIPE_ANNOUNCED_IP: clusterIp(origin!), NODE_URL: 'http://203.0.113.7:8090' });
    const ids = new Set<string>();
    for (const [name, edge] of [['edge1', edge1!], ['edge2', edge2!]] as const) {
      const e = env(edge);
      expect(e, name).toMatchObject({ ROLE: 'edge', REDIS_URL: redisUrl, ORIGIN_URL: `http://${clusterIp(origin!)}:8080`, PIPE_ANNOUNCED_IP: clusterIp(edge), RTC_ANNOUNCED_IP: '203.0.113.7' });
      ids.add(e.NODE_ID!);
      // Viewers reach the edge at NODE_URL and its media port as mediasoup announces it (RTC_PORT): both published as such.
      const ports = (edge.ports as { protocol: string; published: number | string; target: number }[]).map((p) => `${p.published}:${p.target}/${p.protocol}`);
      const httpPort = new URL(e.NODE_URL!).port;
      expect(ports.sort(), name).toEqual([`${e.RTC_PORT}:${e.RTC_PORT}/tcp`, `${e.RTC_PORT}:${e.RTC_PORT}/udp`, `${httpPort}:8080/tcp`].sort());
      // SIGTERM drains the edge (DRAIN_TIMEOUT_MS, 10 s by default): compose must wait longer before it kills.
      expect(String(edge.stop_grace_period), name).toMatch(/^(2\d|[3-9]\d)s$/);
    }
    expect(ids.size).toBe(2);
    expect(env(edge1!).RTC_PORT).not.toBe(env(edge2!).RTC_PORT);
  });

  test('the turn profile runs coturn with the shared secret, and refuses to start without one', async () => {
    test.skip(!pythonYaml, 'python3-yaml is not installed');
    test.skip(sh('turnserver', ['-h']).code === -1, 'coturn is not installed here to run the command');
    test.skip(process.getuid?.() !== 0, 'needs root: coturn runs in a network namespace of its own');
    // (docker-compose 1 lists every profile's services too: the cluster's.)
    expect(compose(['--profile', 'turn', '--profile', 'router', 'config', '--services']).out.trim().split('\n')).toEqual(expect.arrayContaining(['router', 'server', 'turn']));
    const turn = composeConfig(['--profile', 'turn']).services.turn!;
    expect(turn.network_mode).toBe('host');
    // What the container runs: compose's `$$` is a `$` there.
    const [shell, flag, script] = (turn.entrypoint as string[]).map((a) => a.replaceAll('$$', '$'));
    expect([shell, flag]).toEqual(['sh', '-c']);

    const refused = sh('sh', ['-c', script!], { TURN_SECRET: '' });
    expect(refused.code).toBe(1);
    expect(refused.out).toContain('set TURN_SECRET');

    // A host of its own: a namespace with one address (coturn wants one besides loopback).
    const ns = `pt${process.pid % 100000}`;
    const address = '10.233.0.1';
    execFileSync('ip', ['netns', 'add', ns]);
    let coturn: ReturnType<typeof spawn> | undefined;
    let log = '';
    try {
      execFileSync('ip', ['-n', ns, 'link', 'set', 'lo', 'up']);
      // (A veth pair: this kernel has no dummy interfaces.)
      execFileSync('ip', ['-n', ns, 'link', 'add', 'host0', 'type', 'veth', 'peer', 'name', 'host1']);
      execFileSync('ip', ['-n', ns, 'addr', 'add', `${address}/24`, 'dev', 'host0']);
      for (const dev of ['host0', 'host1']) execFileSync('ip', ['-n', ns, 'link', 'set', dev, 'up']);
      coturn = spawn('ip', ['netns', 'exec', ns, 'sh', '-c', script!], { env: { ...process.env, TURN_SECRET: 'compose-secret', PELS_PUBLIC_IP: address }, stdio: ['ignore', 'pipe', 'pipe'] });
      for (const s of [coturn.stdout!, coturn.stderr!]) s.setEncoding('utf8').on('data', (t: string) => (log += t));
      await expect.poll(() => log, { timeout: 10_000 }).toContain('Total General servers');
      // A credential of the server's scheme (expiry:user, base64 HMAC-SHA1 of the secret) gets an allocation.
      const user = `${Math.floor(Date.now() / 1000) + 600}:compose-test`;
      const alloc = sh('ip', ['netns', 'exec', ns, 'turnutils_uclient', '-W', 'compose-secret', '-u', user, '-y', '-n', '1', '-c', '-p', '3478', address]);
      expect(alloc.code, alloc.out + alloc.err).toBe(0);
      const wrong = sh('ip', ['netns', 'exec', ns, 'turnutils_uclient', '-W', 'another-secret', '-u', user, '-y', '-n', '1', '-c', '-p', '3478', address]);
      expect(wrong.code).not.toBe(0);
    } finally {
      coturn?.kill('SIGTERM');
      spawnSync('ip', ['netns', 'pids', ns], { encoding: 'utf8' }).stdout.split('\n').filter(Boolean).forEach((pid) => spawnSync('kill', ['-9', pid]));
      spawnSync('ip', ['netns', 'del', ns]);
    }
  });
});

test.describe('the compose router script in network namespaces', () => {
  test.skip(process.getuid?.() !== 0, 'needs root: network namespaces and tc');
  test.skip(sh('ip', ['netns', 'list']).code !== 0, 'ip netns is not available');

  const tag = `pr${process.pid % 100000}`;
  const [nsA, nsB] = [`${tag}a`, `${tag}b`];
  const dev = `${tag}x`;

  test.beforeAll(() => {
    execFileSync('ip', ['netns', 'add', nsA]);
    execFileSync('ip', ['netns', 'add', nsB]);
    execFileSync('ip', ['-n', nsA, 'link', 'add', dev, 'type', 'veth', 'peer', 'name', `${tag}y`, 'netns', nsB]);
    execFileSync('ip', ['-n', nsA, 'addr', 'add', '10.231.0.1/24', 'dev', dev]);
    execFileSync('ip', ['-n', nsB, 'addr', 'add', '10.231.0.2/24', 'dev', `${tag}y`]);
    for (const [ns, d] of [[nsA, dev], [nsB, `${tag}y`], [nsA, 'lo'], [nsB, 'lo']] as const) execFileSync('ip', ['-n', ns, 'link', 'set', d, 'up']);
  });
  test.afterAll(() => {
    for (const ns of [nsA, nsB]) spawnSync('ip', ['netns', 'del', ns]);
  });

  const router = (command: string, env: Record<string, string> = {}) => sh('ip', ['netns', 'exec', nsA, 'bash', SCRIPT, command, dev], env);
  const qdiscs = () => sh('ip', ['netns', 'exec', nsA, 'tc', 'qdisc', 'show', 'dev', dev]).out;
  const kernelHas = (kind: string): boolean => {
    const ok = sh('ip', ['netns', 'exec', nsA, 'tc', 'qdisc', 'add', 'dev', dev, 'root', 'handle', 'fff0:', kind]).code === 0;
    sh('ip', ['netns', 'exec', nsA, 'tc', 'qdisc', 'del', 'dev', dev, 'root']);
    return ok;
  };
  /** Sends UDP datagrams with a TOS byte from A to B (Node cannot set IP_TOS; Python can). */
  const send = (tos: number, count: number) =>
    execFileSync('ip', [
      'netns', 'exec', nsA, 'python3', '-c',
      `import socket\ns = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)\ns.setsockopt(socket.IPPROTO_IP, socket.IP_TOS, ${tos})\nfor _ in range(${count}): s.sendto(b'x' * 200, ('10.231.0.2', 9))`,
    ]);
  const counters = () => parseQdiscStats(sh('ip', ['netns', 'exec', nsA, 'tc', '-s', '-j', 'qdisc', 'show', 'dev', dev]).out);

  test('PELS mode: HTB root, three color queues and an Internet queue; packets sorted by DSCP; clear removes it', () => {
    // 4000 kbit/s: green's queue about 1 s in bytes (4000 * 1000 / 8 = 500000), yellow's about 500 ms in
    // full-size packets (round(4000 * 500 / 8 / 1200) = 208).
    const r = router('apply', { CAPACITY_KBIT: '4000', USE_PRIO: 'no', USE_NETEM: 'no' });
    expect(r.code, r.err).toBe(0);
    const q = qdiscs();
    expect(q).toMatch(/qdisc htb 1: root .*default 0x20/);
    expect(q).toContain('qdisc bfifo 11: parent 1:11 limit 500000b');
    for (const [handle, limit] of [['12:', 208], ['13:', 10], ['20:', 100]] as const) expect(q).toContain(`qdisc pfifo ${handle} parent 1:${handle.slice(0, 2)} limit ${limit}p`);
    const filters = sh('ip', ['netns', 'exec', nsA, 'tc', 'filter', 'show', 'dev', dev]).out;
    for (const ds of ['00880000/00fc0000', '00900000/00fc0000', '00980000/00fc0000']) expect(filters).toContain(`match ${ds} at 0`);

    // AF41, AF42, AF43 and unmarked traffic each land in their queue.
    send(0x88, 5);
    send(0x90, 6);
    send(0x98, 7);
    send(0x00, 3);
    const c = counters();
    expect([c.green?.packets, c.yellow?.packets, c.red?.packets]).toEqual([5, 6, 7]);
    expect(c.internet?.packets).toBeGreaterThanOrEqual(3);

    expect(router('clear').code).toBe(0);
    expect(qdiscs()).not.toContain('htb');
  });

  test('best-effort mode puts all UDP in one FIFO; random loss without netem goes to a BPF-chosen blackhole', async () => {
    const r = router('apply', { MODE: 'best-effort', LOSS_PCT: '50', USE_PRIO: 'no', USE_NETEM: 'no' });
    expect(r.code, r.err).toBe(0);
    const q = qdiscs();
    expect(q).toContain('qdisc pfifo 10: parent 1:10');
    expect(q).toContain('qdisc blackhole 99: parent 1:99');
    expect(q).not.toContain('qdisc pfifo 11:');
    send(0x88, 200);
    // Let the FIFO drain (about 20 kB at 1000 kbit/s): queued packets are not counted as sent yet.
    await new Promise((r) => setTimeout(r, 1000));
    const c = counters();
    const dropped = c.random?.dropped ?? 0;
    // 200 packets at 50%: well inside [60, 140] unless the filter is broken.
    expect(dropped).toBeGreaterThan(60);
    expect(dropped).toBeLessThan(140);
    // The rest went through the FIFO or overflowed it (a burst into 104 packets of queue).
    expect((c.video?.packets ?? 0) + (c.video?.dropped ?? 0) + dropped).toBe(200);
  });

  test('bad settings are refused with a message that names them, and change nothing', () => {
    router('clear');
    for (const [env, message] of [
      [{ CAPACITY_KBIT: '10' }, /CAPACITY_KBIT must be an integer in \[64, 1000000\]/],
      [{ MODE: 'fast' }, /MODE must be pels or best-effort/],
      [{ LOSS_PCT: '100' }, /LOSS_PCT must be a number in \[0, 100\)/],
      [{ INTERNET_SHARE: '1' }, /INTERNET_SHARE must be in \(0, 1\)/],
      [{ USE_PRIO: 'maybe' }, /USE_PRIO must be auto, yes or no/],
      [{ GREEN_QUEUE_BYTES: '1000' }, /GREEN_QUEUE_BYTES must be an integer in \[1500, 100000000\]/],
    ] as const) {
      const r = router('apply', env);
      expect(r.code).toBe(2);
      expect(r.err).toMatch(message);
    }
    expect(qdiscs()).not.toContain('htb');
  });

  test('with prio: the PELS queue is a strict-priority prio qdisc', () => {
    test.skip(!kernelHas('prio'), 'this kernel has no prio qdisc (sch_prio): the HTB-priority variant above is what runs here');
    const r = router('apply', { USE_PRIO: 'yes', USE_NETEM: 'no' });
    expect(r.code, r.err).toBe(0);
    expect(qdiscs()).toMatch(/qdisc prio 10: parent 1:10 bands 3/);
    send(0x90, 4);
    expect(counters().yellow?.packets).toBe(4);
  });

  test('USE_PRIO=yes on a kernel without prio fails clearly', () => {
    test.skip(kernelHas('prio'), 'this kernel has prio');
    const r = router('apply', { USE_PRIO: 'yes' });
    expect(r.code).toBe(2);
    expect(r.err).toContain('the kernel has no prio qdisc (module sch_prio)');
  });

  test('with netem: leaves are netem queues carrying the random loss and delay', () => {
    test.skip(!kernelHas('netem'), 'this kernel has no netem qdisc (sch_netem): loss uses the BPF blackhole and DELAY_MS cannot be applied');
    const r = router('apply', { USE_PRIO: 'no', USE_NETEM: 'yes', LOSS_PCT: '1', DELAY_MS: '20' });
    expect(r.code, r.err).toBe(0);
    expect(qdiscs()).toMatch(/qdisc netem 11: parent 1:11 limit \d+\s+delay 20ms\s+loss 1%/);
  });
});
