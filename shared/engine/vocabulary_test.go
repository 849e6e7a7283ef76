package engine

import (
	"fmt"
	"testing"
)

// TestEveryKeyLawDraws walks KeyLaws: each law draws its keys within the
// key space, and no two laws draw alike (a law compileCache and key do
// not know would fall to another's draw).
func TestEveryKeyLawDraws(t *testing.T) {
	const keys, draws = 100, 1000
	seen := map[string]KeyLaw{}
	for _, law := range KeyLaws {
		cm := compileCache(&Cache{Keys: KeySpace{Law: law, Count: keys, Exponent: 0.8}, Capacity: 10})
		hist := make([]int, keys)
		for i := range draws {
			k := cm.key((float64(i) + 0.5) / draws)
			if int(k) >= keys {
				t.Fatalf("%q: key %d drawn of %d", law, k, keys)
			}
			hist[k]++
		}
		h := fmt.Sprint(hist)
		if other, ok := seen[h]; ok {
			t.Errorf("the key laws %q and %q draw alike", other, law)
		}
		seen[h] = law
	}
}
