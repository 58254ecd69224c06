package io.jtrace.shm.writer;

import io.jtrace.shm.abi.PageHeader;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.function.IntConsumer;
import org.jctools.queues.atomic.MpscAtomicArrayQueue;
import org.jctools.queues.atomic.MpscUnboundedAtomicArrayQueue;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The producer's commit thread. Writers hand released chunks to it through a lock-free MPSC queue;
 * it batches them into {@link CommitRequest}s for the {@link CommitSink}, every commit period or sooner
 * when a sixteenth of the SMB's page count in chunks is waiting (or a stalling writer, a patch or a
 * closing writer asks), and answers flush requests once everything released before them is committed.
 *
 * <p>Writers enqueue preallocated {@link ChunkRef}s, one per chunk slot of the SMB, so releasing a
 * chunk allocates nothing. A slot is in the queue at most once (it is re-acquired only after the
 * service frees it, which is after it was committed), so a queue as large as the slot count never
 * fills.
 */
public final class ChunkCommitter implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(ChunkCommitter.class);

    /**
     * A chunk slot. {@code targetBuffer} and the read-out hints are written before the queue's
     * release-offer, read after poll.
     */
    static final class ChunkRef {
        final int page;
        final int index;
        int targetBuffer;
        int payloadEnd;
        int sequenceId;

        ChunkRef(int page, int index) {
            this.page = page;
            this.index = index;
        }
    }

    private static final int BATCH_CAPACITY = 32;

    private final ChunkRef[] refs;
    /*
     * JCTools' atomic queues (AtomicReferenceArray / field updaters), not its sun.misc.Unsafe ones: on
     * JDK 24+ the first Unsafe memory access prints warnings on the host's stderr, which a guest agent
     * must never do. benchmarks/README.md compares the two on the slice path.
     */
    private final MpscAtomicArrayQueue<ChunkRef> released;
    /** Patches are rare (only nested messages that span chunks): see {@link PendingPatches}. */
    private final PendingPatches patches = new PendingPatches();
    /** Ids of writers that closed (once per writer lifetime, so boxing them costs nothing that matters). */
    private final MpscUnboundedAtomicArrayQueue<Integer> retired = new MpscUnboundedAtomicArrayQueue<>(64);
    /**
     * Takes retired writer ids back once the commit that retires them has been handed to the sink, so
     * a writer that gets the id next can never have its chunks taken for the old writer's sequence.
     * Written once before writers exist (see {@link #onWriterIdsReleased}); volatile for the commit thread.
     */
    private volatile IntConsumer idReleaser = id -> { };
    /** Commit thread only: the ids retired by the batch being committed. */
    private int[] retiring = new int[8];
    /**
     * Queued chunks that wake the commit thread before its period ends: a sixteenth of the pages' worth.
     * Busy writers take whole-page chunks, so a quarter of the pages (the earlier threshold) could be a
     * quarter of the SMB's bytes waiting in one batch; smaller, earlier batches lost a third to all of
     * what four threads paced at 1 M slices/s each lost in the JVM's first seconds (benchmarks/README.md).
     */
    private final int wakeThreshold;
    private final CommitSink sink;
    private final long periodNanos;
    /** Highest flush request id asked for and not yet answered, or -1. Set by any thread, taken by the commit thread. */
    private final AtomicLong pendingFlush = new AtomicLong(-1);
    /** Requests the sink has released, for reuse; offered by the sink's thread, taken by the commit thread. */
    private final MpscAtomicArrayQueue<CommitRequest> recycled = new MpscAtomicArrayQueue<>(16);
    private final Thread thread;
    private volatile boolean running = true;
    /**
     * Set by a stalling writer ({@link #wakeUp}) so the queue goes out before it reaches the threshold;
     * cleared by the commit thread before it drains. Volatile: the writer's store is seen by the commit
     * thread's next look (a lost race only means a second commit, or the periodic one).
     */
    private volatile boolean commitRequested;
    /**
     * Commit thread only: the last drain stopped at a slot a writer has claimed but not filled yet, with
     * more chunks possibly behind it; they are due as soon as that writer stores it.
     */
    private boolean stoppedAtClaimedSlot;
    /**
     * Advances whenever chunks may have been freed since: the sink freed or released a request, and at
     * every wake-up of the commit thread while frees are not reported in this process (the safety net
     * for a service in another process, which frees without telling this side). Writers that found the SMB full scan it again only once this has
     * moved ({@link ChunkArbiter#acquireChunk}). Written by the sink's and the commit thread, and by a
     * writer that freed a chunk it promoted (atomic increment, after the page's mark), read by writers
     * (volatile).
     */
    private final AtomicLong freeEpoch = new AtomicLong();
    /** Pages that may have a free chunk, marked where frees are reported ({@link #chunksFreed}). */
    private final FreePageHints freePages;
    /** Longest a writer waits for the service to take its earlier chunks before its chunk is queued too. */
    private static final long CATCH_UP_NANOS = 10_000_000;
    /** One sleep of that wait. */
    private static final long CATCH_UP_STEP_NANOS = 50_000;
    /** The sink's promoter, if it has one ({@link CommitSink#promoter()}): fixed at construction. */
    private final ChunkPromoter promoter;
    /**
     * Set once the sink reports frees in this process ({@link CommitRequest#chunksFreed()}): every free
     * then comes with its pages, and the commit thread's period stops marking every page. Until then
     * (a service in another process, whose frees this side never sees) each period marks them all.
     * Volatile: set by the sink's thread, read by the commit thread.
     */
    private volatile boolean freesReportedInProcess;

    public ChunkCommitter(int pageCount, CommitSink sink, long commitPeriodMillis, String name) {
        this(pageCount, sink, commitPeriodMillis, name, new MpscAtomicArrayQueue<>(pageCount * PageHeader.MAX_CHUNKS_PER_PAGE));
    }

    /** With the queue of released chunks given: tests pass one that can hide a stored slot, as a claimed one looks. */
    ChunkCommitter(int pageCount, CommitSink sink, long commitPeriodMillis, String name,
                   MpscAtomicArrayQueue<ChunkRef> released) {
        this.refs = new ChunkRef[pageCount * PageHeader.MAX_CHUNKS_PER_PAGE];
        for (int page = 0; page < pageCount; page++) {
            for (int i = 0; i < PageHeader.MAX_CHUNKS_PER_PAGE; i++) {
                refs[page * PageHeader.MAX_CHUNKS_PER_PAGE + i] = new ChunkRef(page, i);
            }
        }
        this.released = released;
        this.freePages = new FreePageHints(pageCount);
        this.wakeThreshold = Math.max(1, pageCount / 16);
        this.sink = sink;
        this.promoter = sink.promoter();
        this.periodNanos = TimeUnit.MILLISECONDS.toNanos(commitPeriodMillis);
        this.thread = new Thread(this::run, name);
        this.thread.setDaemon(true);
    }

    public void start() {
        thread.start();
    }

    /**
     * Writer thread: a chunk it released as COMPLETE goes to the service, straight into its output when
     * the service promotes it ({@link ChunkPromoter}: the chunk is then free, and its page marked), else
     * queued for the commit thread. Lock-free, allocation-free.
     */
    public void chunkReleased(int writerId, int page, int index, int targetBuffer, int payloadEnd, int sequenceId) {
        if (promoter != null && promote(writerId, page, index, targetBuffer, payloadEnd, sequenceId)) {
            // After the free (the promoter's CAS), as for the frees the sink reports: see FreePageHints.
            freePages.mark(page);
            freeEpoch.incrementAndGet();
            return;
        }
        chunkReleased(page, index, targetBuffer, payloadEnd, sequenceId);
    }

    /**
     * Asks the promoter to take the chunk; while the writer's earlier chunks are still on their way
     * through the service ({@link ChunkPromoter#BEHIND}), sends them now and gives the service the CPU
     * to take them, for at most {@link #CATCH_UP_NANOS}. Without this a writer that once went through the
     * service under load would stay there: the service takes each of its chunks after the writer has
     * released the next ones, so the writer's turn would never come.
     */
    private boolean promote(int writerId, int page, int index, int targetBuffer, int payloadEnd, int sequenceId) {
        long deadline = 0;
        while (true) {
            int outcome = promoter.tryPromote(writerId, page, index, targetBuffer, payloadEnd, sequenceId);
            if (outcome != ChunkPromoter.BEHIND) {
                return outcome == ChunkPromoter.PROMOTED;
            }
            long now = System.nanoTime();
            if (deadline == 0) {
                deadline = now + CATCH_UP_NANOS;
            } else if (now - deadline > 0) {
                return false;
            }
            // Requested, not only woken: a commit thread woken with nothing due parks again. Then asleep,
            // not yielding: among many busy threads a yield does not give the service thread the CPU.
            wakeUp();
            LockSupport.parkNanos(CATCH_UP_STEP_NANOS);
        }
    }

    /**
     * Writer thread: queue a chunk it released as COMPLETE, with the writer's read-out hints (see
     * {@link CommitRequest#add(int, int, int, int, int)}). Lock-free, allocation-free.
     */
    public void chunkReleased(int page, int index, int targetBuffer, int payloadEnd, int sequenceId) {
        ChunkRef ref = refs[page * PageHeader.MAX_CHUNKS_PER_PAGE + index];
        ref.targetBuffer = targetBuffer;
        ref.payloadEnd = payloadEnd;
        ref.sequenceId = sequenceId;
        if (!released.offer(ref)) {
            // Unreachable by construction (see class comment); never lose the chunk silently if it is.
            throw new IllegalStateException("commit queue full: chunk " + index + " of page " + page + " queued twice");
        }
        if (released.size() >= wakeThreshold) {
            LockSupport.unpark(thread);
        }
    }

    /**
     * Writer thread: queue a patch for a chunk it released earlier. Goes out no earlier than that chunk
     * (see {@link #drainInto}), and soon: the service cannot read that chunk's sequence past it until
     * the patch arrives. Patches are rare (a nested message spanning chunks), so each wakes the thread.
     */
    public void patch(CommitRequest.Patch patch) {
        // Read after the writer's offer of the chunk returned (same thread): the index counts that chunk.
        patches.offer(patch, released.currentProducerIndex());
        LockSupport.unpark(thread);
    }

    /** Where retired writer ids go once the service has been told (the arbiter's id allocator). */
    public void onWriterIdsReleased(IntConsumer releaser) {
        this.idReleaser = releaser;
    }

    /**
     * Writer thread, after its last chunk was released (and its last patch queued): the writer is gone.
     * The retirement travels in a commit no earlier than those chunks and patches (see {@link #drainInto}),
     * and its id is given back only after that commit (see {@link #commitBatch}), or, with a service that
     * promotes chunks, once the service has handled it ({@link #retiredWritersHandled}).
     */
    public void retireWriter(int writerId) {
        retired.offer(writerId);
        LockSupport.unpark(thread);
    }

    /**
     * Commits what is queued now: a writer is waiting for chunks to come free. A stalling writer calls
     * this at every attempt, so it wakes the thread only when that can free something (a chunk is queued)
     * and no earlier request is still pending: the commit thread clears the flag before it drains, so
     * whatever was queued before a call that found the flag set is taken by that drain, or, behind a slot
     * a writer has claimed and not yet filled, by the drains that follow it ({@link #commitDue}). (At
     * sixty-four stalling threads, waking it at every attempt made 6,000 wake-ups a second with mostly
     * nothing to commit.) A stalling writer does not rely on this to see chunks freed: the service's
     * frees mark their pages, or, from a service in another process, its waits mark every page
     * ({@link ChunkArbiter#acquireChunkStalling}).
     */
    public void wakeUp() {
        if (!commitRequested && !released.isEmpty()) {
            commitRequested = true;
            LockSupport.unpark(thread);
        }
    }

    /**
     * Asks the commit thread to commit everything released so far and then call
     * {@link CommitSink#flushComplete} with {@code requestId}. Ids increase; acking N acks all before it.
     */
    public void requestFlush(long requestId) {
        pendingFlush.accumulateAndGet(requestId, Math::max);
        LockSupport.unpark(thread);
    }

    /*
     * A batch goes out when one is due (commitDue): a sixteenth of the pages' worth of chunks is waiting,
     * the period has passed, a flush or a stalling writer asks, or a patch or a retirement waits. Not
     * whenever the queue holds a chunk: under a steady stream the thread would then commit a few chunks
     * at a time, thousands of times a second, and each commit wakes the service thread (a flooding
     * thread measured 5,500 commits/s of about 20 chunks, the commit thread and the service each blocking
     * and waking that often, and the flooding thread preempted 1,000 times a second).
     */
    private void run() {
        CommitRequest batch = newBatch();
        long periodEnd = System.nanoTime() + periodNanos;
        while (running) {
            long flushId = pendingFlush.getAndSet(-1);
            boolean periodOver = System.nanoTime() - periodEnd >= 0;
            if (flushId >= 0 || periodOver || commitDue()) {
                commitRequested = false;
                if (drainInto(batch, flushId >= 0)) {
                    commitBatch(batch);
                    batch = newBatch();
                } else if (flushId < 0 && !released.isEmpty()) {
                    // Nothing taken, yet a writer has claimed a slot: it is between the claim and the store,
                    // likely preempted there. Let it run before coming back to its slot (still due:
                    // stoppedAtClaimedSlot).
                    Thread.yield();
                    continue;
                }
                if (periodOver) {
                    periodEnd = System.nanoTime() + periodNanos;
                }
            }
            if (flushId >= 0) {
                acknowledge(flushId);
            }
            if (!commitDue() && pendingFlush.get() < 0) {
                // Until the period ends or a writer, a flush or a stall wakes the thread (unpark). A wake-up
                // from before the batch above only ends this park early: the loop then finds nothing due.
                LockSupport.parkNanos(this, Math.max(0, periodEnd - System.nanoTime()));
                markAllUnlessFreesReported();
            }
        }
        long flushId = pendingFlush.getAndSet(-1);
        do {
            // Again while patches are carried: their chunks go out with the next drain.
            if (drainInto(batch, true)) {
                commitBatch(batch);
                batch = newBatch();
            }
        } while (patches.anyCarried());
        if (flushId >= 0) {
            // Everything released before the flush request is in the batches just committed.
            acknowledge(flushId);
        }
    }

    private void acknowledge(long flushId) {
        try {
            sink.flushComplete(flushId);
        } catch (RuntimeException e) {
            LOG.warn("jtrace: flush ack {} failed", flushId, e);
        }
    }

    /** Whether a batch should go out before the period ends (flush requests aside). */
    private boolean commitDue() {
        return commitRequested || stoppedAtClaimedSlot || released.size() >= wakeThreshold
                || !retired.isEmpty() || !patches.isEmpty();
    }

    private void commitBatch(CommitRequest batch) {
        // Read before the commit: the sink may recycle the request as soon as it has taken it.
        int retiredCount = batch.retiredWriterCount();
        if (retiring.length < retiredCount) {
            retiring = Arrays.copyOf(retiring, Math.max(retiredCount, retiring.length * 2));
        }
        for (int i = 0; i < retiredCount; i++) {
            retiring[i] = batch.retiredWriter(i);
        }
        try {
            sink.commit(batch);
        } catch (RuntimeException e) {
            // The sink belongs to the service side; a failure there must not kill the commit thread.
            // The batch is not re-sent (the service may have taken part of it already), and its retired
            // writer ids are kept out of circulation: the service may not know they were retired.
            LOG.warn("jtrace: commit of {} chunks failed", batch.size(), e);
            return;
        }
        if (promoter != null) {
            // A service that promotes chunks frees these ids once it has handled the request (see
            // retiredWritersHandled): a new owner of an id could otherwise promote its chunk 0 before the
            // service has retired the old owner's sequence.
            return;
        }
        // The service takes requests in order, so it sees these retirements before any chunk a new
        // owner of the id can release from now on.
        IntConsumer releaser = idReleaser;
        for (int i = 0; i < retiredCount; i++) {
            releaser.accept(retiring[i]);
        }
    }

    /**
     * The sink released {@code request}: for a sink with a promoter (a service in this process, which
     * handles a request after {@link CommitSink#commit} returned), its retired writers' ids go back now.
     */
    void retiredWritersHandled(CommitRequest request) {
        if (promoter != null) {
            IntConsumer releaser = idReleaser;
            for (int i = 0; i < request.retiredWriterCount(); i++) {
                releaser.accept(request.retiredWriter(i));
            }
        }
    }

    private CommitRequest newBatch() {
        CommitRequest reused = recycled.poll();
        return reused != null ? reused : new CommitRequest(BATCH_CAPACITY, this);
    }

    /** The sink released {@code request} ({@link CommitRequest#release()}): it is reused for a later batch. */
    void recycle(CommitRequest request) {
        recycled.offer(request);
    }

    /**
     * The sink freed the chunks of {@code request} ({@code bySink}), or released it without saying so (a
     * sink that failed half-way, or one whose service frees them later): their pages are marked, then the
     * epoch moves, so a writer that sees the new epoch also sees the marks (both volatile).
     */
    void chunksFreed(CommitRequest request, boolean bySink) {
        if (bySink && !freesReportedInProcess) {
            freesReportedInProcess = true;
        }
        if (!freesReportedInProcess) {
            // A service in another process: this request's chunks are freed later, and earlier ones
            // anywhere, unseen here. Every page is worth a look again, as before the marks.
            notifyChunksFreed();
            return;
        }
        for (int i = 0; i < request.size(); i++) {
            freePages.mark(request.page(i));
        }
        freeEpoch.incrementAndGet();
    }

    /**
     * The service freed chunks of this SMB. Releasing a commit request says so already; this is for
     * frees that come without one (a service that answers commits over IPC, a test freeing by hand).
     */
    public void notifyChunksFreed() {
        freePages.markAll();
        freeEpoch.incrementAndGet();
    }

    /** {@link #notifyChunksFreed()} unless the sink reports its frees in this process (then marks are exact). */
    void markAllUnlessFreesReported() {
        if (!freesReportedInProcess) {
            notifyChunksFreed();
        }
    }

    /**
     * Moves the epoch without marking a page: a writer re-marked a page it had cleared, because a free
     * landed in between ({@link ChunkArbiter}); a scan that skipped the page meanwhile must not be trusted.
     */
    void epochMoved() {
        freeEpoch.incrementAndGet();
    }

    FreePageHints freePages() {
        return freePages;
    }

    /** See {@link #freeEpoch}: unchanged means no chunk of the SMB can have been freed since. */
    long freeEpoch() {
        return freeEpoch.get();
    }

    /**
     * Takes what is queued into {@code batch}; returns whether it holds anything. {@code complete}: every
     * chunk released before this call must be in it (a flush is to be acked after it, or the thread
     * ends), even one whose writer has claimed its slot in the queue but not yet stored it there. The
     * commit thread's; package-private for the jcstress rig that plays that thread.
     */
    boolean drainInto(CommitRequest batch, boolean complete) {
        // The reverse of the order a writer queues in (chunk, then its patches, then its retirement), so
        // whatever is seen here has everything queued before it already in the later queues, and this same
        // drain takes it (it must then be complete): a retirement its writer's patches (a writer that
        // closes mid-packet queues patches right before retiring) and chunks, a patch its chunk. The
        // service applies a request's chunks, then its patches, then its retirements. After the chunks, the
        // patches queued meanwhile whose chunks it took (a writer's next chunk must not go out without
        // them: see PendingPatches); the others wait for the next drain.
        Integer writerId;
        while ((writerId = retired.poll()) != null) {
            batch.addRetiredWriter(writerId);
        }
        patches.takeAllInto(batch);
        boolean mustTakeAll = complete || !batch.patches().isEmpty() || batch.retiredWriterCount() > 0;
        while (true) {
            ChunkRef ref = released.relaxedPoll();
            if (ref != null) {
                batch.add(ref.page, ref.index, ref.targetBuffer, ref.payloadEnd, ref.sequenceId);
                continue;
            }
            if (!mustTakeAll || released.isEmpty()) {
                stoppedAtClaimedSlot = !released.isEmpty();
                break;
            }
            // The next slot is claimed but not stored yet: its writer sits between the two (preempted,
            // most likely, with more runnable threads than cores). JCTools' poll() would spin on the
            // slot, taking the CPU that writer needs to finish; yield it instead.
            Thread.yield();
        }
        patches.takeThoseOfTakenChunksInto(batch, released.currentConsumerIndex());
        return !batch.isEmpty();
    }

    /** Commits what is queued and stops the thread. */
    @Override
    public void close() {
        running = false;
        LockSupport.unpark(thread);
        try {
            thread.join(TimeUnit.SECONDS.toMillis(5));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
