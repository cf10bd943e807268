// Package testimage makes real images for tests: bytes every decoder
// takes, different for each seed, so that a test can tell the image that
// reached a fake model API from any other.
package testimage

import (
	"bytes"
	"image"
	"image/png"
)

// PNG is a w×h PNG whose pixels follow from seed. Its pixels are noise,
// so that it does not compress to nothing: its size is about 4·w·h bytes.
func PNG(seed byte, w, h int) []byte {
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	x := uint32(seed) + 1
	for i := range img.Pix {
		// xorshift: cheap noise that deflate cannot shrink.
		x ^= x << 13
		x ^= x >> 17
		x ^= x << 5
		img.Pix[i] = byte(x)
	}
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		panic(err) // encoding to memory does not fail
	}
	return b.Bytes()
}
