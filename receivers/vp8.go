package main

import "errors"

// vp8Descriptor holds what a receiver needs from the VP8 RTP payload
// descriptor (RFC 7741, section 4.2) of one packet.
type vp8Descriptor struct {
	// Start: first packet of a frame (S bit set, partition index 0).
	Start bool
	// PictureID: 7 or 15 bits; -1 when absent.
	PictureID int
	// TL0PicIdx: -1 when absent.
	TL0PicIdx int
	// TID: temporal layer; -1 when absent.
	TID int
	// Keyframe: on a frame's first packet, the VP8 payload header's P bit is 0.
	Keyframe bool
}

var errShortDescriptor = errors.New("VP8 payload shorter than its descriptor")

// parseVP8Descriptor reads the descriptor at the start of an RTP payload.
func parseVP8Descriptor(p []byte) (vp8Descriptor, error) {
	d := vp8Descriptor{PictureID: -1, TL0PicIdx: -1, TID: -1}
	if len(p) < 1 {
		return d, errShortDescriptor
	}
	b0 := p[0]
	off := 1
	if b0&0x80 != 0 {
		if len(p) < 2 {
			return d, errShortDescriptor
		}
		x := p[1]
		off = 2
		if x&0x80 != 0 {
			if len(p) < off+1 {
				return d, errShortDescriptor
			}
			m := p[off]
			off++
			if m&0x80 != 0 {
				if len(p) < off+1 {
					return d, errShortDescriptor
				}
				d.PictureID = int(m&0x7f)<<8 | int(p[off])
				off++
			} else {
				d.PictureID = int(m & 0x7f)
			}
		}
		if x&0x40 != 0 {
			if len(p) < off+1 {
				return d, errShortDescriptor
			}
			d.TL0PicIdx = int(p[off])
			off++
		}
		if x&0x30 != 0 {
			if len(p) < off+1 {
				return d, errShortDescriptor
			}
			if x&0x20 != 0 {
				d.TID = int(p[off] >> 6)
			}
			off++
		}
	}
	d.Start = b0&0x10 != 0 && b0&0x0f == 0
	if d.Start {
		if len(p) < off+1 {
			return d, errShortDescriptor
		}
		d.Keyframe = p[off]&0x01 == 0
	}
	return d, nil
}
