package main

import "testing"

func TestParseVP8Descriptor(t *testing.T) {
	// As the server writes it: X, S; I (15-bit PictureID 0x1234), L (TL0PICIDX 7), T (TID 2, Y); then a keyframe's payload header (P = 0).
	start := []byte{0x90, 0xe0, 0x80 | 0x12, 0x34, 7, 2<<6 | 0x20, 0x10}
	d, err := parseVP8Descriptor(start)
	if err != nil || !d.Start || d.PictureID != 0x1234 || d.TL0PicIdx != 7 || d.TID != 2 || !d.Keyframe {
		t.Fatalf("start packet: %+v %v", d, err)
	}
	// A continuation packet (S = 0), 7-bit PictureID, no keyframe flag read.
	d, err = parseVP8Descriptor([]byte{0x80, 0xe0, 0x05, 9, 1 << 6, 0x00})
	if err != nil || d.Start || d.PictureID != 5 || d.TL0PicIdx != 9 || d.TID != 1 || d.Keyframe {
		t.Fatalf("continuation: %+v %v", d, err)
	}
	// Interframe: payload header P bit set.
	d, _ = parseVP8Descriptor([]byte{0x90, 0xe0, 0x80, 0x01, 1, 0, 0x01})
	if d.Keyframe {
		t.Fatal("interframe read as keyframe")
	}
	if _, err := parseVP8Descriptor([]byte{0x90, 0xe0, 0x80}); err == nil {
		t.Fatal("truncated descriptor accepted")
	}
}
