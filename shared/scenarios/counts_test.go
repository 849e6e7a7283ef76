package scenarios

import (
	"math"
	"testing"
)

// TestFailoverRetriesAtEveryLevel: every-layer retries at three levels;
// its clients' retries are 0 while about 61k retried calls reach the
// database, so retries_all_levels counts them, and layer_retries says at
// which level (#27, item 7).
func TestFailoverRetriesAtEveryLevel(t *testing.T) {
	res := run(t, builtin(t, "failover-incident"))
	for _, st := range res.Strategies {
		m := st.Metrics
		var sum, denied float64
		for _, r := range st.LayerRetries {
			sum += r
		}
		for _, d := range st.LayerRetriesDenied {
			denied += d
		}
		if len(st.LayerAttempts) > 1 && (len(st.LayerRetries) != len(st.LayerAttempts) || len(st.LayerRetriesDenied) != len(st.LayerAttempts)) {
			t.Errorf("%s: %d levels of attempts, %d of retries, %d of retries denied", st.Name, len(st.LayerAttempts), len(st.LayerRetries), len(st.LayerRetriesDenied))
		}
		if len(st.LayerRetries) > 0 && (sum != m.RetriesAllLevels || st.LayerRetries[0] != m.Retries || denied != m.RetriesDenied) {
			t.Errorf("%s: layer_retries %v (sum %v) against retries_all_levels %v and retries %v; layer_retries_denied %v against retries_denied %v",
				st.Name, st.LayerRetries, sum, m.RetriesAllLevels, m.Retries, st.LayerRetriesDenied, m.RetriesDenied)
		}
		if m.RetriesAllLevels < m.Retries {
			t.Errorf("%s: %v retries at every level, fewer than the clients' %v", st.Name, m.RetriesAllLevels, m.Retries)
		}
		t.Logf("%s: retries %v, at every level %v %v, denied %v %v", st.Name, m.Retries, m.RetriesAllLevels, st.LayerRetries, m.RetriesDenied, st.LayerRetriesDenied)
	}
	every := strategyResult(t, res, "every-layer")
	m := every.Metrics
	if m.Retries != 0 || math.Abs(m.RetriesAllLevels-61e3) > 3e3 || len(every.LayerRetries) != 3 || every.LayerRetries[1] == 0 || every.LayerRetries[2] == 0 {
		t.Errorf("every-layer: %v retries at the clients, %v at every level (%v); want 0 and about 61k over 3 levels", m.Retries, m.RetriesAllLevels, every.LayerRetries)
	}
}

// TestIdempotencyKeysOutcomes: without a key, retried payments are
// applied twice (duplicates) and some the client saw fail were applied
// all the same; with a key none is applied twice (#27, item 7).
func TestIdempotencyKeysOutcomes(t *testing.T) {
	res := run(t, builtin(t, "idempotency-keys"))
	for _, st := range res.Strategies {
		m := st.Metrics
		t.Logf("%s: succeeded %v failed %v applied after give-up %v duplicates %v", st.Name, m.Succeeded, m.Failed, m.AppliedAfterGiveUp, m.Duplicates)
		if m.AppliedAfterGiveUp > m.Failed {
			t.Errorf("%s: %v failed operations, %v of them applied", st.Name, m.Failed, m.AppliedAfterGiveUp)
		}
	}
	none, noKey, key := metrics(t, res, "no-retry"), metrics(t, res, "retry-no-key"), metrics(t, res, "with-key")
	if none.AppliedAfterGiveUp == 0 || noKey.Duplicates == 0 || key.Duplicates != 0 {
		t.Errorf("no-retry: %v applied after give-up; retry-no-key: %v duplicates; with-key: %v duplicates", none.AppliedAfterGiveUp, noKey.Duplicates, key.Duplicates)
	}
}
