import assert from 'node:assert/strict';
import { test } from 'node:test';
import { operatorSourceText, publicSourceLabel, redactCredentials } from './sourceRedaction';
import type { SourceSpec } from './sourceSpec';

test('redactCredentials masks user info and query values of every URL in a text, and drops fragments', () => {
  const cases: Array<[string, string]> = [
    ['rtsp://admin:hunter2@10.0.0.7:554/live/cam1', 'rtsp://***@10.0.0.7:554/live/cam1'],
    ['rtsp://admin@10.0.0.7/live', 'rtsp://***@10.0.0.7/live'],
    ['https://cdn.example.com/a.m3u8?token=s3cr3t&quality=hd', 'https://cdn.example.com/a.m3u8?token=***&quality=***'],
    ['https://cdn.example.com/a.m3u8?s3cr3t', 'https://cdn.example.com/a.m3u8?***'],
    ['https://u:p@h/a?x=1#frag', 'https://***@h/a?x=***'],
    ['srt://[::1]:9000?streamid=live&passphrase=longsecret', 'srt://[::1]:9000?streamid=***&passphrase=***'],
    ['http://h/p@th', 'http://h/p@th'],
    ['http://u:p@ss@h/', 'http://***@h/'],
    ['https://cdn.example.com/plain.m3u8', 'https://cdn.example.com/plain.m3u8'],
    [
      '[tcp @ 0x55] Connection to tcp://10.0.0.7:554?timeout=0 failed: Connection refused | rtsp://admin:hunter2@10.0.0.7:554/live?token=abc: Connection refused',
      '[tcp @ 0x55] Connection to tcp://10.0.0.7:554?timeout=*** failed: Connection refused | rtsp://***@10.0.0.7:554/live?token=***: Connection refused',
    ],
    ["Error opening input 'http://u:p@h/x'", "Error opening input 'http://***@h/x'"],
    ['no URL here: /etc/passwd', 'no URL here: /etc/passwd'],
  ];
  for (const [text, want] of cases) assert.equal(redactCredentials(text), want, text);
});

const file: SourceSpec = { kind: 'file', path: '/srv/media/news/clip.mp4', mediaDirs: ['/srv/media'] };
const url: SourceSpec = { kind: 'url', url: 'rtsp://admin:hunter2@10.0.0.7:554/live/cam1?token=abc', scheme: 'rtsp' };
const lavfi: SourceSpec = { kind: 'lavfi', graph: 'testsrc2=size=640x360:rate=30', generator: 'testsrc2' };

test('viewers see the kind and a label: no host, path or credentials', () => {
  assert.equal(publicSourceLabel(file), 'file clip.mp4');
  assert.equal(publicSourceLabel(url), 'rtsp stream');
  assert.equal(publicSourceLabel(lavfi), 'lavfi testsrc2');
});

test('the operator sees the source whole, URL credentials masked', () => {
  assert.equal(operatorSourceText(file), '/srv/media/news/clip.mp4');
  assert.equal(operatorSourceText(url), 'rtsp://***@10.0.0.7:554/live/cam1?token=***');
  assert.equal(operatorSourceText(lavfi), 'lavfi:testsrc2=size=640x360:rate=30');
});
