package convert

import (
	"fmt"

	"github.com/retrylab/retrylab/shared/engine"
)

// importedDependency is the name of the one dependency of the scenario an
// import makes (the engine's name for a dependency without one), which an
// imported bulkhead limits.
const importedDependency = "dependency"

// r4jBulkheadFrom reads the strategy's bulkhead: the semaphore Bulkhead
// (resilience4j.bulkhead) or, without one, the thread pool bulkhead
// (resilience4j.thread-pool-bulkhead), from BulkheadConfig's and
// ThreadPoolBulkheadConfig's documented semantics
// (https://resilience4j.readme.io/docs/bulkhead). Nil without either.
func r4jBulkheadFrom(n *notes, mods map[string]*r4jModule, name string) *engine.Bulkhead {
	rm, bm, tm := mods["retry"], mods["bulkhead"], mods["threadpoolbulkhead"]
	sem, _ := bm.effective(n, name, false)
	pool, _ := tm.effective(n, name, false)
	var b *engine.Bulkhead
	var order int
	var orderPath string
	switch {
	case sem != nil:
		b = r4jSemaphore(n, sem)
		order, orderPath = bm.order, bm.orderPath
		if pool != nil {
			n.warn(pool.path, "is the thread pool bulkhead of the same name, which a method annotated @Bulkhead(type = THREADPOOL) uses; the semaphore bulkhead (@Bulkhead's default type) is imported, and a strategy has one bulkhead: not read")
		}
	case pool != nil:
		b = r4jThreadPool(n, pool)
		order, orderPath = bm.order, bm.orderPath
	default:
		return nil
	}
	if b == nil {
		return nil
	}
	switch {
	case order < rm.order:
		n.info(orderPath, "is below retryAspectOrder: the bulkhead is outside the retry, held for the whole call, as the engine holds it")
	case rm.instances[name] != nil || name == "default" && rm.configs["default"] != nil:
		path := orderPath
		if path == "" {
			path = join(cmpOr(bm.path, "resilience4j.bulkhead"), "bulkheadAspectOrder")
		}
		n.warn(path, "the Bulkhead aspect runs inside the Retry (bulkheadAspectOrder above retryAspectOrder, the default), so each attempt takes a permit and the waits between attempts hold none; the engine holds the bulkhead for the whole call, retries and their waits included, so it refuses sooner under retries")
	}
	return b
}

// r4jSemaphore is a SemaphoreBulkhead: maxConcurrentCalls permits (default
// 25; the setter refuses 0); a call that finds none waits up to maxWaitDuration (default 0: it is
// refused at once), with no bound on the threads waiting.
func r4jSemaphore(n *notes, p *r4jProps) *engine.Bulkhead {
	b := &engine.Bulkhead{Dependency: importedDependency, MaxConcurrent: 25}
	if k, ok := p.num("maxconcurrentcalls"); ok {
		b.MaxConcurrent = int(k)
	} else {
		n.info(p.path2("maxconcurrentcalls"), "is not set: BulkheadConfig's default, 25")
	}
	if b.MaxConcurrent > engine.MaxWorkers {
		n.fail(p.path2("maxconcurrentcalls"), b.MaxConcurrent, "is more than RetryLab simulates; allowed up to %d", engine.MaxWorkers)
		return nil
	}
	if d, ok := p.dur("maxwaitduration"); ok && d > 0 {
		if d > engine.MaxSpan {
			n.fail(p.path2("maxwaitduration"), springDurationString(d), "is longer than RetryLab simulates; allowed up to %s", engine.MaxSpan)
			return nil
		}
		b.MaxWait = d
		// Any number of threads may wait on the semaphore.
		b.MaxWaiting = engine.MaxQueue
		n.info(p.path2("maxwaitduration"), "any number of calls wait for a permit, each up to %s: max_waiting %d, the most the engine allows", d, engine.MaxQueue)
	}
	r4jNoEffect(n, p)
	return b
}

// r4jThreadPool is a FixedThreadPoolBulkhead: a ThreadPoolExecutor of
// coreThreadPoolSize to maxThreadPoolSize threads over a queue of
// queueCapacity calls, refusing a call when both are full.
func r4jThreadPool(n *notes, p *r4jProps) *engine.Bulkhead {
	maxT, core, queue := r4jProcessors, r4jProcessors-1, 100
	if k, ok := p.num("maxthreadpoolsize"); ok && k > 0 {
		maxT = int(k)
	} else {
		n.warn(p.path2("maxthreadpoolsize"), "is not set: ThreadPoolBulkheadConfig's default is the machine's processor count; imported as %d", r4jProcessors)
	}
	if k, ok := p.num("corethreadpoolsize"); ok && k > 0 {
		core = int(k)
	} else {
		core = min(core, maxT)
		n.info(p.path2("corethreadpoolsize"), "is not set: ThreadPoolBulkheadConfig's default is the processor count less one; imported as %d", core)
	}
	if k, ok := p.num("queuecapacity"); ok {
		queue = int(k)
	} else {
		n.info(p.path2("queuecapacity"), "is not set: ThreadPoolBulkheadConfig's default, 100")
	}
	if core > maxT {
		n.fail(p.path2("corethreadpoolsize"), core, "is above maxThreadPoolSize %d (ThreadPoolBulkheadConfig refuses it); allowed at most maxThreadPoolSize", maxT)
		return nil
	}
	if maxT > engine.MaxWorkers {
		n.fail(p.path2("maxthreadpoolsize"), maxT, "is more than RetryLab simulates; allowed up to %d", engine.MaxWorkers)
		return nil
	}
	if queue > engine.MaxQueue {
		n.fail(p.path2("queuecapacity"), queue, "is more than RetryLab simulates; allowed up to %d", engine.MaxQueue)
		return nil
	}
	b := &engine.Bulkhead{Dependency: importedDependency, MaxConcurrent: maxT, MaxWaiting: queue}
	if core < maxT {
		n.warn(p.path2("corethreadpoolsize"), "%s", fmt.Sprintf("is below maxThreadPoolSize: Java's ThreadPoolExecutor runs %d calls and queues the next %d, starting threads up to %d only while the queue is full; the engine runs %d calls before queueing any, so with more than %d calls in progress it runs more of them at once and queues fewer than resilience4j", core, queue, maxT, maxT, core))
	}
	if p.has("keepaliveduration") {
		n.info(p.path2("keepaliveduration"), "how long a thread above coreThreadPoolSize stays idle before it stops: no effect on what the engine simulates; not read")
	}
	if p.has("contextpropagators") {
		n.info(p.path2("contextpropagators"), "no effect on calls; not read")
	}
	n.info(p.path, "a thread pool bulkhead runs methods returning a CompletionStage; the engine's bulkhead holds a slot for the whole call, as a pool thread does, with max_waiting the queue's capacity and no limit on the wait")
	r4jNoEffect(n, p)
	return b
}

// r4jNoEffect notes the bulkhead properties that change nothing a call
// sees.
func r4jNoEffect(n *notes, p *r4jProps) {
	for _, k := range []string{"writablestacktraceenabled", "eventconsumerbuffersize"} {
		if p.has(k) {
			n.info(p.path2(k), "no effect on calls; not read")
		}
	}
}

type r4jYAMLBulkhead struct {
	// BulkheadAspectOrder orders the Bulkhead aspect, of both kinds of
	// bulkhead; written 0, outermost, the engine's placement.
	BulkheadAspectOrder *int                               `yaml:"bulkheadAspectOrder,omitempty"`
	Instances           map[string]r4jYAMLBulkheadInstance `yaml:"instances,omitempty"`
}

type r4jYAMLBulkheadInstance struct {
	MaxConcurrentCalls int    `yaml:"maxConcurrentCalls"`
	MaxWaitDuration    string `yaml:"maxWaitDuration,omitempty"`
}

type r4jYAMLThreadPool struct {
	Instances map[string]r4jYAMLThreadPoolInstance `yaml:"instances"`
}

type r4jYAMLThreadPoolInstance struct {
	MaxThreadPoolSize  int `yaml:"maxThreadPoolSize"`
	CoreThreadPoolSize int `yaml:"coreThreadPoolSize"`
	QueueCapacity      int `yaml:"queueCapacity"`
}

// r4jExportBulkhead writes the strategy's bulkhead: a semaphore Bulkhead
// when calls wait a bounded time (or not at all), a thread pool bulkhead
// of a fixed size when they wait in a bounded line without a time limit.
func r4jExportBulkhead(n *notes, st *engine.Strategy, instance string) (*r4jYAMLBulkhead, *r4jYAMLThreadPool) {
	if len(st.Bulkheads) == 0 {
		return nil, nil
	}
	if len(st.Bulkheads) > 1 {
		n.warn("bulkheads", "resilience4j's instance stands for one dependency: only bulkheads[0] (%s) is exported", st.Bulkheads[0].Dependency)
	}
	b := st.Bulkheads[0]
	outermost := 0
	order := &r4jYAMLBulkhead{BulkheadAspectOrder: &outermost}
	n.info("bulkheads[0]", "written with bulkheadAspectOrder 0, outermost, so that the bulkhead is held for the whole call, retries included, as the engine holds it (by default resilience4j puts it inside the Retry); the order applies to every bulkhead of the application")
	if b.MaxWaiting > 0 && b.MaxWait == 0 {
		n.info("bulkheads[0]", "waits in a line of %d without a time limit: written as a thread pool bulkhead of %d threads (coreThreadPoolSize = maxThreadPoolSize), for methods returning a CompletionStage, @Bulkhead(type = THREADPOOL)", b.MaxWaiting, b.MaxConcurrent)
		return order, &r4jYAMLThreadPool{Instances: map[string]r4jYAMLThreadPoolInstance{instance: {
			MaxThreadPoolSize: b.MaxConcurrent, CoreThreadPoolSize: b.MaxConcurrent, QueueCapacity: b.MaxWaiting}}}
	}
	out := r4jYAMLBulkheadInstance{MaxConcurrentCalls: b.MaxConcurrent}
	if b.MaxWait > 0 {
		out.MaxWaitDuration = springDurationString(b.MaxWait)
		if b.MaxWaiting < engine.MaxQueue {
			n.warn("bulkheads[0].max_waiting", "resilience4j's semaphore bulkhead lets any number of calls wait up to maxWaitDuration; the line of %d is not exported", b.MaxWaiting)
		}
	}
	order.Instances = map[string]r4jYAMLBulkheadInstance{instance: out}
	return order, nil
}
