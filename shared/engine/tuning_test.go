package engine

import "testing"

// TestArrivalsCut checks a load reduction's arrivals: the same as without
// it before the cut, and at the reduced rate after it.
func TestArrivalsCut(t *testing.T) {
	for _, kind := range []ArrivalKind{ArrivalPoisson, ArrivalUniform} {
		w := workModel{arrival: kind, clients: 10, rate: 1000, duration: 20e9}
		cut := w
		cut.cut, cut.cutAt, cut.cutRate = true, 10e9, 250
		a, b := newArrivals(&w, 7), newArrivals(&cut, 7)
		var before, after int
		for {
			y, ok := b.next()
			if !ok {
				break
			}
			if y.at < 10e9 {
				x, _ := a.next()
				if x != y {
					t.Fatalf("%s: arrival %d is %+v with the cut, %+v without", kind, before, y, x)
				}
				before++
			} else {
				after++
			}
		}
		if before < 9800 || before > 10200 || after < 2350 || after > 2650 {
			t.Errorf("%s: %d arrivals before the cut (want about 10,000), %d after (about 2,500)", kind, before, after)
		}
	}
}
