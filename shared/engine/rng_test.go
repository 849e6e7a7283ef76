package engine

import (
	"math"
	"math/big"
	"math/rand/v2"
	"testing"
)

// ln and exp must agree with package math to within rounding: they replace it
// only so that every platform rounds alike.
func TestLnExp(t *testing.T) {
	for _, x := range []float64{1e-300, 1e-9, 0.001, 0.1, 0.5, 0.7071, 1, 1.5, 2, math.E, 10, 12345.678, 1e9, 1e300} {
		if got, want := ln(x), math.Log(x); math.Abs(got-want) > 1e-15*math.Max(1, math.Abs(want)) {
			t.Errorf("ln(%g) = %.17g, want %.17g", x, got, want)
		}
	}
	for _, x := range []float64{-700, -50, -1, -0.3, 0, 1e-9, 0.3465, 1, 2.5, 20, 300, 699} {
		if got, want := exp(x), math.Exp(x); math.Abs(got-want) > 4e-16*want {
			t.Errorf("exp(%g) = %.17g, want %.17g", x, got, want)
		}
	}
	// Subnormal numbers, against math.Log of them scaled into the normal
	// range: math.Log itself is wrong there on amd64 (golang/go#56600).
	for _, x := range []float64{5e-324, 1e-310, 2.2e-308} {
		if got, want := ln(x), math.Log(x*0x1p54)-54*math.Ln2; math.Abs(got-want) > 1e-15*math.Abs(want) {
			t.Errorf("ln(%g) = %.17g, want %.17g", x, got, want)
		}
	}
	if ln(1) != 0 || exp(0) != 1 {
		t.Errorf("ln(1) = %g, exp(0) = %g", ln(1), exp(0))
	}
}

// The normal draws must have the right moments, or lognormal service times
// would miss their p50 and p99.
func TestNormal(t *testing.T) {
	k := keyed{seed: 7}
	var sum, sq float64
	var below int
	const n = 200000
	for i := range uint64(n) {
		z := k.normal(drawService, i, 0)
		sum += z
		sq += z * z
		if z < 2.3263478740408408 {
			below++
		}
	}
	mean, sd := sum/n, math.Sqrt(sq/n-(sum/n)*(sum/n))
	if math.Abs(mean) > 0.01 || math.Abs(sd-1) > 0.01 || math.Abs(float64(below)/n-0.99) > 0.002 {
		t.Errorf("mean %.4f, sd %.4f, share below z(0.99) %.4f", mean, sd, float64(below)/n)
	}
}

func TestLnMatchesMath(t *testing.T) {
	k := keyed{seed: 1}
	for i := range uint64(100000) {
		u := k.float(drawArrival, i, 0)
		x := math.Ldexp(0.5+u, int(i%200)-100)
		got, want := ln(x), math.Log(x)
		if math.Abs(got-want) > 1e-15*math.Max(1, math.Abs(want)) { // a few ulp
			t.Fatalf("ln(%.17g) = %.17g, want %.17g", x, got, want)
		}
	}
}

// The ziggurat must draw from the exponential distribution: its mean,
// variance and tail shares.
func TestExp1Distribution(t *testing.T) {
	k := keyed{seed: 3}
	const n = 400000
	var sum, sq float64
	var over1, over3, over8 int
	for i := range uint64(n) {
		x := k.exp1(drawService, i, 0)
		if x < 0 {
			t.Fatalf("negative sample %g", x)
		}
		sum += x
		sq += x * x
		if x > 1 {
			over1++
		}
		if x > 3 {
			over3++
		}
		if x > 8 {
			over8++
		}
	}
	mean := sum / n
	variance := sq/n - mean*mean
	check := func(name string, got, want, tol float64) {
		if math.Abs(got-want) > tol {
			t.Errorf("%s = %.5f, want %.5f ± %g", name, got, want, tol)
		}
	}
	check("mean", mean, 1, 0.006)
	check("variance", variance, 1, 0.015)
	check("P(X>1)", float64(over1)/n, math.Exp(-1), 0.002)
	check("P(X>3)", float64(over3)/n, math.Exp(-3), 0.001)
	check("P(X>8)", float64(over8)/n, math.Exp(-8), 0.0001)
}

// pcgBefore returns a generator whose next Uint64 is u: it inverts PCG's
// DXSM output (with the state's low word 1) and then its LCG step.
func pcgBefore(t *testing.T, u uint64) *rand.PCG {
	t.Helper()
	const cheapMul = 0xda942042e4dd58b5
	h := u ^ u>>48 // the low word 1 leaves the last multiply out; the shift is its own inverse
	inv := uint64(cheapMul)
	for range 6 { // Newton's iteration for the inverse of an odd number
		inv *= 2 - cheapMul*inv
	}
	h *= inv
	h ^= h >> 32 // a shift by half or more is its own inverse
	mod := new(big.Int).Lsh(big.NewInt(1), 128)
	word := func(hi, lo uint64) *big.Int {
		return new(big.Int).Add(new(big.Int).Lsh(new(big.Int).SetUint64(hi), 64), new(big.Int).SetUint64(lo))
	}
	mul, inc := word(2549297995355413924, 4865540595714422341), word(6364136223846793005, 1442695040888963407)
	prev := new(big.Int).Sub(word(h, 1), inc)
	prev.Mul(prev, new(big.Int).ModInverse(mul, mod)).Mod(prev, mod)
	b := make([]byte, 32)
	prev.FillBytes(b)
	var p rand.PCG
	if err := p.UnmarshalBinary(append([]byte("pcg:"), b[16:]...)); err != nil {
		t.Fatal(err)
	}
	if got := p.Uint64(); got != u {
		t.Fatalf("the crafted generator draws %#x, not %#x", got, u)
	}
	if err := p.UnmarshalBinary(append([]byte("pcg:"), b[16:]...)); err != nil {
		t.Fatal(err)
	}
	return &p
}

// TestExp1AtTheBaseLayersEdge: a draw in the base layer at exactly its
// rectangle's edge (j = zigK[0]) is not in the rectangle (j < zigK[0]):
// it goes to the tail, beyond zigR.
func TestExp1AtTheBaseLayersEdge(t *testing.T) {
	if x := exp1(pcgBefore(t, uint64(zigK[0])<<32)); x < zigR {
		t.Errorf("exp1 at the base layer's edge = %g; want the tail, at least %g", x, zigR)
	}
}
