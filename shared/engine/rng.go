package engine

import (
	"math"
	"math/rand/v2"
)

// Purposes of random draws. Each purpose has its own stream so that adding a
// draw of one kind never shifts the numbers of another.
const (
	drawArrival uint64 = iota + 1
	drawMix
	drawService
	drawError
	drawLoadError
	drawJitter
	drawPhase
)

// A keyed source gives the random number for a key (purpose, a, b): the same
// key always gives the same number within a run. This is how every strategy of
// a run sees the same service time for the k-th dependency call of operation i
// (common random numbers), whatever happened before it. It reseeds a PCG from
// math/rand/v2 for each draw, which costs a few nanoseconds and no allocation.
type keyed struct {
	seed uint64
	pcg  rand.PCG
}

func (k *keyed) uint64(purpose, a, b uint64) uint64 {
	k.pcg.Seed(mix64(k.seed^purpose*0x9e3779b97f4a7c15), mix64(a*0xbf58476d1ce4e5b9^b))
	return k.pcg.Uint64()
}

// float returns a number in [0, 1).
func (k *keyed) float(purpose, a, b uint64) float64 {
	return float64(k.uint64(purpose, a, b)>>11) * 0x1p-53
}

// mix64 is the SplitMix64 finaliser: a bijection that spreads nearby keys.
func mix64(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	x ^= x >> 31
	return x
}

// The engine computes logarithms and exponentials itself rather than with
// package math: math.Log and math.Exp have assembly versions on amd64 that may
// round differently from the pure Go versions used under GOOS=js, and results
// must be byte-identical on both. Only +, -, *, / and exact bit operations are
// used, each product converted explicitly so no platform fuses it into an FMA.

const ln2 = 0.6931471805599453094172321214581766

// ln returns the natural logarithm of x > 0.
func ln(x float64) float64 {
	m, e := math.Frexp(x) // x = m·2^e, m in [0.5, 1)
	if m < math.Sqrt2/2 {
		m *= 2
		e--
	}
	// ln(m) = 2·atanh(s) with s = (m-1)/(m+1), |s| < 0.172.
	s := (m - 1) / (m + 1)
	s2 := float64(s * s)
	sum, term := 0.0, s
	for k := 1; k <= 27; k += 2 {
		sum += float64(term / float64(k))
		term = float64(term * s2)
	}
	return float64(2*sum) + float64(float64(e)*ln2)
}

// exp returns e^x for moderate x.
func exp(x float64) float64 {
	if x > 700 {
		return math.Inf(1)
	}
	if x < -700 {
		return 0
	}
	k := math.Floor(x/ln2 + 0.5)
	r := x - float64(k*ln2) // |r| ≤ ln2/2
	sum, term := 1.0, 1.0
	for n := 1; n <= 20; n++ {
		term = float64(term*r) / float64(n)
		sum += term
	}
	return math.Ldexp(sum, int(k))
}

// exponential turns a uniform u in [0, 1) into an exponential sample with the
// given mean.
func exponential(u, mean float64) float64 {
	return -float64(mean * ln(1-u))
}

// normal returns a standard normal sample from the keyed source by the polar
// method, which needs only ln and sqrt (exact in IEEE arithmetic).
func (k *keyed) normal(purpose, a, b uint64) float64 {
	for i := uint64(0); ; i++ {
		x := 2*k.float(purpose, a, b<<8|i*2) - 1
		y := 2*k.float(purpose, a, b<<8|i*2+1) - 1
		s := float64(x*x) + float64(y*y)
		if s > 0 && s < 1 {
			return float64(x * math.Sqrt(float64(-2*ln(s))/s))
		}
	}
}
