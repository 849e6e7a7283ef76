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
	drawNetwork
	drawThrottle
	drawCacheKey
	drawBalance
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
	k.reseed(purpose, a, b)
	return k.pcg.Uint64()
}

func (k *keyed) reseed(purpose, a, b uint64) {
	k.pcg.Seed(mix64(k.seed^purpose*0x9e3779b97f4a7c15), mix64(a*0xbf58476d1ce4e5b9^b))
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

const (
	ln2   = 0.6931471805599453094172321214581766
	ln2Hi = 6.93147180369123816490e-01
	ln2Lo = 1.90821492927058770002e-10
)

// ln returns the natural logarithm of x > 0. It splits x = 2^e · m with m
// in [1, 2), looks up ln c for the centre c of m's 1/128-wide cell, and adds
// ln(m/c) = 2·atanh((m-c)/(m+c)), whose argument is below 1/512, so four
// terms of the series reach full precision.
func ln(x float64) float64 {
	b := math.Float64bits(x)
	exp := int(b>>52&0x7ff) - 1023
	if exp == -1023 { // subnormal: rare enough to take the slow road
		m, e := math.Frexp(x)
		return ln(m*(1<<54)) + float64(float64(e-54)*ln2)
	}
	m := math.Float64frombits(b&(1<<52-1) | 1023<<52)
	j := b >> 45 & 127
	c := lnCentre[j]
	s := (m - c) / (m + c)
	s2 := float64(s * s)
	p := float64(float64(float64(float64(float64(s2*(1.0/7))+1.0/5)*s2)+1.0/3)*s2) + 1
	return (lnTable[j] + float64(2*float64(s*p))) + float64(float64(exp)*ln2)
}

// lnCentre[j] = 1 + (j + ½)/128 and lnTable[j] = ln lnCentre[j], computed once
// with the slow series below so that every platform builds the same table.
var lnCentre, lnTable = func() (c, t [128]float64) {
	for j := range c {
		c[j] = 1 + (float64(j)+0.5)/128
		t[j] = lnSeries(c[j])
	}
	return c, t
}()

// lnSeries returns ln m for m in [0.5, 2) by the atanh series.
func lnSeries(m float64) float64 {
	e := 0
	if m > math.Sqrt2 {
		m /= 2
		e = 1
	}
	s := (m - 1) / (m + 1)
	s2 := float64(s * s)
	sum, term := 0.0, s
	for k := 1; k <= 61; k += 2 {
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
	// r = x - k·ln2 in two steps (Cody and Waite): ln2Hi has few enough
	// bits that k·ln2Hi is exact. |r| ≤ ln2/2: eighteen terms suffice.
	r := (x - float64(k*ln2Hi)) - float64(k*ln2Lo)
	p := expCoeff[len(expCoeff)-1]
	for i := len(expCoeff) - 2; i >= 0; i-- {
		p = float64(p*r) + expCoeff[i]
	}
	return math.Ldexp(p, int(k))
}

// expCoeff[i] is 1/i!.
var expCoeff = func() (c [19]float64) {
	f := 1.0
	for i := range c {
		if i > 0 {
			f *= float64(i)
		}
		c[i] = 1 / f
	}
	return c
}()

// exp1 returns a sample of the exponential distribution with mean 1 by the
// ziggurat method of Marsaglia and Tsang (2000): 256 layers of equal area;
// about 99% of draws need one random number, one comparison and one
// multiplication, and no logarithm. The low byte of a 64-bit draw picks the
// layer and its high 32 bits the point, so the two are independent.
func exp1(p *rand.PCG) float64 {
	for {
		u := p.Uint64()
		i, j := u&255, uint32(u>>32)
		x := float64(j) * zigW[i]
		if j < zigK[i] {
			return x
		}
		if i == 0 { // the tail beyond zigR is again exponential
			return zigR - ln(1-float64(p.Uint64()>>11)*0x1p-53)
		}
		// In the wedge: accept under the curve.
		y := float64(p.Uint64()>>11) * 0x1p-53
		if zigF[i]+float64(y*(zigF[i-1]-zigF[i])) < exp(-x) {
			return x
		}
	}
}

// The ziggurat's tables, built at start-up with this file's own exp and ln so
// that every platform builds the same ones. zigR is where the tail begins and
// zigV the area of each layer.
const (
	zigR = 7.69711747013104972
	zigV = 3.949659822581572e-3
)

var zigK, zigW, zigF = func() (k [256]uint32, w, f [256]float64) {
	const m = 1 << 32
	d, t := zigR, zigR
	q := zigV / exp(-d)
	k[0] = uint32(d / q * m)
	k[1] = 0
	w[0], w[255] = q/m, d/m
	f[0], f[255] = 1, exp(-d)
	for i := 254; i >= 1; i-- {
		d = -ln(zigV/d + exp(-d))
		k[i+1] = uint32(d / t * m)
		t = d
		f[i] = exp(-d)
		w[i] = d / m
	}
	return k, w, f
}()

// exp1 draws an exponential sample with mean 1 for a key.
func (k *keyed) exp1(purpose, a, b uint64) float64 {
	k.reseed(purpose, a, b)
	return exp1(&k.pcg)
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
