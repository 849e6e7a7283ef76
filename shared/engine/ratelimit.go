package engine

import (
	"math"
	"time"
)

// The constants of the AWS SDKs' adaptive retry mode, as aws-sdk-go-v2
// sets them (aws/retry/adaptive_ratelimit.go). They are variables so that
// 1 − awsSmooth and 1 − awsBeta are computed in float64 at run time, as
// the SDK computes them, and not exactly by the compiler.
var (
	awsSmooth      = 0.8 // weight of the newest half-second's rate in the measured rate
	awsBeta        = 0.7 // a throttle multiplies the rate by this
	awsScale       = 0.4 // CUBIC's scale constant
	awsMinFillRate = 0.5 // tokens per second, at least
)

// An AWSRateLimiter is the client-side rate limiter of the AWS SDKs'
// adaptive retry mode, written after aws-sdk-go-v2's (aws/retry,
// adaptiveRateLimit and adaptiveTokenBucket) and checked against it call
// by call in the conformance module. Times are since the limiter was made
// (the SDK reads the wall clock; the engine's clock starts at 0, and
// rates are counted in half-second buckets of that clock).
//
// The bucket is off until the first throttle. Each answer (Update)
// counts toward the measured send rate, a smoothed rate over half-second
// buckets; a throttle remembers the rate it happened at (the lower of the
// measured and the fill rate once on) and sets the rate to 0.7 of it; a
// success sets it on CUBIC's curve 0.4·(t − W)³ + that rate, t the time
// since the last throttle and W = ∛(that rate·0.3/0.4). The fill rate is
// that rate, at most twice the measured rate, at least 0.5 per second;
// the bucket holds as many tokens as the rate, at least 1.
//
// The cube root is math.Cbrt, which is the same on every platform; the
// SDK's math.Pow(x, 1/3) agrees with it to within a few units in the last
// place.
type AWSRateLimiter struct {
	enabled        bool
	fillRate       float64
	calculatedRate float64
	refilled       bool
	lastRefill     int64
	measured       float64
	lastBucket     float64 // seconds
	count          int64
	lastMax        float64
	lastThrottle   int64
	window         float64 // seconds
	tokens         float64
	capacity       float64
}

// NewAWSRateLimiter returns a limiter made at time 0, off.
func NewAWSRateLimiter() *AWSRateLimiter { return &AWSRateLimiter{} }

// Acquire takes a token at now when one is there, or reports how long to
// wait before asking again, as the SDK's AcquireToken(1) does. A limiter
// that is off always gives one.
func (l *AWSRateLimiter) Acquire(now time.Duration) (ok bool, wait time.Duration) {
	if !l.enabled {
		return true, 0
	}
	l.refill(int64(now))
	if l.tokens < 1 {
		return false, time.Duration(float64((1-l.tokens)/l.fillRate) * float64(time.Second))
	}
	l.tokens--
	return true, 0
}

// Update counts an attempt's answer at now: throttled or not.
func (l *AWSRateLimiter) Update(now time.Duration, throttled bool) {
	t := int64(now)
	l.measure(t)
	if throttled {
		r := l.measured
		if l.enabled {
			r = min(l.measured, l.fillRate)
		}
		l.lastMax = r
		l.cubicWindow()
		l.lastThrottle = t
		l.calculatedRate = float64(r * awsBeta)
		l.enabled = true
	} else {
		l.cubicWindow()
		d := float64(t-l.lastThrottle) / float64(time.Second)
		l.calculatedRate = float64(awsScale*math.Pow(d-l.window, 3)) + l.lastMax
	}
	rate := min(l.calculatedRate, float64(2*l.measured))
	l.refill(t)
	l.fillRate = max(rate, awsMinFillRate)
	l.capacity = max(rate, 1)
	l.tokens = min(l.tokens, l.capacity)
}

// Enabled reports whether a throttle has turned the bucket on.
func (l *AWSRateLimiter) Enabled() bool { return l.enabled }

// FillRate is the tokens the bucket gains per second.
func (l *AWSRateLimiter) FillRate() float64 { return l.fillRate }

// MeasuredRate is the smoothed rate of answers per second.
func (l *AWSRateLimiter) MeasuredRate() float64 { return l.measured }

// CalculatedRate is the rate CUBIC chose at the last answer, before the
// bounds of the measured rate and the minimum.
func (l *AWSRateLimiter) CalculatedRate() float64 { return l.calculatedRate }

func (l *AWSRateLimiter) cubicWindow() {
	l.window = math.Cbrt(float64(l.lastMax*(1-awsBeta)) / awsScale)
}

func (l *AWSRateLimiter) measure(t int64) {
	sec := float64(t) / float64(time.Second)
	bucket := math.Floor(float64(sec*2)) / 2
	l.count++
	if bucket > l.lastBucket {
		r := float64(l.count) / (bucket - l.lastBucket)
		l.measured = float64(r*awsSmooth) + float64(l.measured*(1-awsSmooth))
		l.count = 0
		l.lastBucket = bucket
	}
}

func (l *AWSRateLimiter) refill(t int64) {
	if !l.refilled {
		l.refilled, l.lastRefill = true, t
		return
	}
	fill := float64(float64(t-l.lastRefill)/float64(time.Second)) * l.fillRate
	l.tokens = min(l.tokens+fill, l.capacity)
	l.lastRefill = t
}

// A FixedWindowLimiter is resilience4j's RateLimiter, AtomicRateLimiter
// (resilience4j-ratelimiter, ratelimiter/internal/AtomicRateLimiter.java
// at af9e7c9): time since the limiter was made is cut into cycles of the
// refresh period, and each cycle starts with limitForPeriod permits
// (calculateNextState: the permits left, plus limitForPeriod per cycle
// passed, at most limitForPeriod). A call that finds a permit takes it at
// once. One that finds none is told how long until a cycle has a permit
// for it (nanosToWaitForPermission: the rest of this cycle, plus a whole
// cycle for each limitForPeriod calls already waiting); if that is at
// most the timeout, it reserves the permit, leaving the count below zero
// (reservePermissions), and waits that long; if not, it reserves nothing,
// waits the timeout (waitForPermissionIfNecessary) and fails:
// RequestNotPermitted.
type FixedWindowLimiter struct {
	limit   int64 // permits per cycle
	period  int64 // ns
	timeout int64 // ns
	cycle   int64 // the cycle the permits were counted in
	permits int64 // left in that cycle; below zero, reserved by waiting calls
}

// NewFixedWindowLimiter returns a limiter made at time 0 with limit
// permits per period, whose calls wait up to timeout for one.
func NewFixedWindowLimiter(limit int, period, timeout time.Duration) *FixedWindowLimiter {
	return &FixedWindowLimiter{limit: int64(limit), period: int64(period), timeout: int64(timeout), permits: int64(limit)}
}

// Acquire asks for a permit at now, as acquirePermission(1) does. With ok,
// the permit is the caller's after wait (0: at once); without, the caller
// waits wait (the timeout) and then fails, and nothing is reserved.
func (l *FixedWindowLimiter) Acquire(now time.Duration) (wait time.Duration, ok bool) {
	t := int64(now)
	cur := t / l.period
	if passed := cur - l.cycle; passed > 0 {
		// permits + passed·limit, at most limit, without overflow.
		if short := l.limit - l.permits; passed >= (short+l.limit-1)/l.limit {
			l.permits = l.limit
		} else {
			l.permits += passed * l.limit
		}
		l.cycle = cur
	}
	var w int64
	if l.permits < 1 {
		toNext := (cur+1)*l.period - t
		// divCeil(-(permits + limit − 1), limit), Java's int division:
		// toward zero, as Go's.
		full := (-(l.permits + l.limit - 1) + l.limit - 1) / l.limit
		w = full*l.period + toNext
	}
	if w > l.timeout {
		return time.Duration(l.timeout), false
	}
	l.permits--
	return time.Duration(w), true
}
