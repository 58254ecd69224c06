package io.jtrace.shm.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jtrace.shm.abi.ChunkHeader;
import io.jtrace.shm.abi.ChunkState;
import io.jtrace.shm.abi.SharedMemoryAbi;
import io.jtrace.shm.abi.SharedMemoryBuffer;
import io.jtrace.shm.testing.ChunkFrames.Copy;
import io.jtrace.shm.proto.WireFormat;
import io.jtrace.shm.writer.ChunkArbiter;
import io.jtrace.shm.writer.ChunkCommitter;
import io.jtrace.shm.writer.CommitRequest;
import io.jtrace.shm.writer.CommitSink;
import io.jtrace.shm.writer.TraceWriter;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;

/**
 * The producer side of an SMB (buffer, started commit thread, arbiter) with a sink that plays the
 * service: on every commit it copies each chunk out of the SMB (COMPLETE → BEING_READ, copy) and records
 * the patches. A copied chunk is freed (BEING_READ → FREE) at once when {@code freeOnCommit}, else only
 * when the test calls {@link #readCommitted()}, so a test can keep the SMB full.
 *
 * <p>The sink also checks the commit protocol: a committed chunk is COMPLETE, and a patch never arrives
 * before (in an earlier request than) its chunk. Breaches are collected in {@link #violations()}.
 */
public final class SmbRig implements CommitSink, AutoCloseable {
    public final SharedMemoryAbi abi;
    public final ChunkCommitter committer;
    public final ChunkArbiter arbiter;
    private final boolean freeOnCommit;
    /** When false, committed chunks are recorded without their payload (for tests that push hundreds of MiB). */
    public volatile boolean keepPayloads = true;

    private final List<Copy> copies = new ArrayList<>();
    private final List<CommitRequest.Patch> patches = new ArrayList<>();
    private final ArrayDeque<int[]> held = new ArrayDeque<>();
    private final Set<Long> committedChunks = new HashSet<>();
    private final List<String> violations = new ArrayList<>();
    private int requests;

    private final ConcurrentSkipListMap<Long, CompletableFuture<Void>> flushes = new ConcurrentSkipListMap<>();
    private long nextFlushId = 1;

    public SmbRig(Path dir, int size, int pageSize) throws IOException {
        this(dir, size, pageSize, false);
    }

    public SmbRig(Path dir, int size, int pageSize, boolean freeOnCommit) throws IOException {
        this(dir, size, pageSize, freeOnCommit, size / pageSize, 20);
    }

    /**
     * {@code committerPages} sizes the commit thread's queue and wake threshold (a quarter of it): more
     * pages than the SMB has let chunks wait at a parked commit thread until something wakes it.
     */
    public SmbRig(Path dir, int size, int pageSize, boolean freeOnCommit, int committerPages, long commitPeriodMillis)
            throws IOException {
        this.abi = new SharedMemoryAbi(SharedMemoryBuffer.create(dir, size, pageSize));
        this.freeOnCommit = freeOnCommit;
        this.commitThreadName = "test-commit-" + RIGS.incrementAndGet();
        this.committer = new ChunkCommitter(committerPages, this, commitPeriodMillis, commitThreadName);
        this.arbiter = new ChunkArbiter(abi, committer);
        committer.start();
    }

    private static final AtomicInteger RIGS = new AtomicInteger();
    private final String commitThreadName;

    /** Waits (liveness only) until the commit thread is parked, waiting for its period or a wake-up. */
    public void awaitCommitThreadParked() {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (true) {
            for (Thread t : Thread.getAllStackTraces().keySet()) {
                if (t.getName().equals(commitThreadName) && t.getState() == Thread.State.TIMED_WAITING) {
                    return;
                }
            }
            assertTrue(System.nanoTime() < deadline, "the commit thread never parked");
            Thread.onSpinWait();
        }
    }

    /** Releases stolen chunks as COMPLETE to the commit thread, as a writer does, for the sink to take. */
    public void releaseToCommitter(List<Integer> stolen) {
        for (int h : stolen) {
            abi.releaseChunkAsComplete(ChunkArbiter.pageOf(h), ChunkArbiter.indexOf(h));
            committer.chunkReleased(ChunkArbiter.pageOf(h), ChunkArbiter.indexOf(h), 0, -1, 0);
        }
    }

    /**
     * What is wrong with a chunk's read-out hints (see {@link CommitRequest#add(int, int, int, int, int)}),
     * or null: a known end must be where its last frame ends, with no drop marker but a leading one and
     * no continuing packet among its frames; every frame of such a chunk ends in a slot holding the writer's id, but a
     * first one that continues a packet (the packet may have been split inside its slot).
     */
    private static String hintBreach(Copy copy, int payloadEnd, int sequenceId) {
        if (payloadEnd < 0) {
            return null;
        }
        if (copy.hasFlag(ChunkHeader.FLAG_LAST_PACKET_CONTINUES_ON_NEXT)) {
            return "an end is given for a chunk whose last packet continues";
        }
        List<ChunkFrames.Frame> frames = copy.frames();
        ChunkFrames.Frame last = frames.isEmpty() ? null : frames.get(frames.size() - 1);
        // A drop marker has no content: it ends where its frame header does.
        int end = last == null ? 0 : last.contentOffset() + (last.isDropMarker() ? 0 : last.size());
        if (end != payloadEnd) {
            return "frames end at " + end + ", the hint says " + payloadEnd;
        }
        for (ChunkFrames.Frame f : frames) {
            if (f.isDropMarker()) {
                if (f != frames.get(0)) {
                    return "an end is given for a chunk with a drop marker after a packet";
                }
                continue;
            }
            if (f == frames.get(0) && copy.hasFlag(ChunkHeader.FLAG_FIRST_PACKET_CONTINUES_FROM_PREV)) {
                continue;
            }
            int slot = f.contentOffset() + f.size() - WireFormat.SEQUENCE_ID_SLOT_BYTES;
            byte[] p = copy.payload();
            if (!WireFormat.isSequenceIdSlot(p, slot) || ((p[slot + 1] & 0x7F) | p[slot + 2] << 7) != sequenceId) {
                return "a frame at " + f.contentOffset() + " does not end in a slot holding " + sequenceId;
            }
        }
        return null;
    }

    private static long key(int writerId, int chunkId) {
        return (long) writerId << 32 | Integer.toUnsignedLong(chunkId);
    }

    @Override
    public synchronized void commit(CommitRequest request) {
        int number = requests++;
        // As the service does: the request's chunks first, then its patches.
        for (int i = 0; i < request.size(); i++) {
            int page = request.page(i);
            int index = request.chunk(i);
            ChunkState state = abi.chunkState(page, index);
            if (state != ChunkState.COMPLETE || !abi.tryAcquireChunkForReading(page, index)) {
                violations.add("request " + number + ": chunk " + index + " of page " + page + " committed while " + state);
                continue;
            }
            Copy copy = ChunkFrames.copy(abi, page, index, request.targetBuffer(i));
            if (keepPayloads) {
                String breach = hintBreach(copy, request.payloadEnd(i), request.sequenceId(i));
                if (breach != null) {
                    violations.add("request " + number + ": chunk " + copy.chunkId() + " of writer " + copy.writerId() + ": " + breach);
                }
            }
            copies.add(keepPayloads ? copy : copy.withPayload(new byte[0], copy.flags()));
            committedChunks.add(key(copy.writerId(), copy.chunkId()));
            if (freeOnCommit) {
                abi.releaseChunkAsFree(page, index);
            } else {
                held.add(new int[] {page, index});
            }
        }
        for (CommitRequest.Patch patch : request.patches()) {
            if (!committedChunks.contains(key(patch.writerId(), patch.chunkId()))) {
                violations.add("request " + number + ": " + patch + " arrived before its chunk");
            }
            patches.add(patch);
        }
        // As the service does once done with a request: tells writers chunks may have come free.
        request.release();
    }

    @Override
    public void flushComplete(long requestId) {
        flushes.headMap(requestId, true).values().forEach(f -> f.complete(null));
    }

    /** Flushes the writers, then waits until the commit thread has committed everything released so far. */
    public void flush(TraceWriter... writers) {
        for (TraceWriter w : writers) {
            w.flush();
        }
        long id;
        CompletableFuture<Void> done = new CompletableFuture<>();
        synchronized (flushes) {
            id = nextFlushId++;
            flushes.put(id, done);
        }
        committer.requestFlush(id);
        try {
            done.get(60, TimeUnit.SECONDS); // liveness only
        } catch (Exception e) {
            throw new AssertionError("flush " + id + " was never acknowledged", e);
        }
    }

    /** {@link #flush} the writers, then {@link #readCommitted}: the service takes and frees all they released. */
    public void flushAndReadCommitted(TraceWriter... writers) {
        flush(writers);
        readCommitted();
    }

    /** The service frees every chunk it copied and still holds (only needed without {@code freeOnCommit}). */
    public synchronized void readCommitted() {
        int[] c;
        while ((c = held.poll()) != null) {
            assertTrue(abi.releaseChunkAsFree(c[0], c[1]), "free chunk " + c[1] + " of page " + c[0]);
            committer.notifyChunksFreed();
        }
    }

    public synchronized List<Copy> copies() {
        return new ArrayList<>(copies);
    }

    public synchronized List<Copy> chunksOf(int writerId) {
        return copies.stream().filter(c -> c.writerId() == writerId).collect(Collectors.toList());
    }

    public synchronized List<Integer> chunkIdsOf(int writerId) {
        return chunksOf(writerId).stream().map(Copy::chunkId).collect(Collectors.toList());
    }

    public synchronized List<CommitRequest.Patch> patchesOf(int writerId) {
        return patches.stream().filter(p -> p.writerId() == writerId).collect(Collectors.toList());
    }

    /** Breaches of the commit protocol seen by the sink. */
    public synchronized List<String> violations() {
        return new ArrayList<>(violations);
    }

    /** Reads writer {@code writerId}'s sequence from everything committed so far, asserting the commit protocol held. */
    public SequenceReader.Result sequence(int writerId) {
        assertEquals(List.of(), violations(), "commit protocol");
        return SequenceReader.read(chunksOf(writerId), patchesOf(writerId));
    }

    /** Takes every free chunk of the SMB (as another writer would), so the SMB is full. */
    public List<Integer> stealAllChunks() {
        List<Integer> stolen = new ArrayList<>();
        int handle;
        while ((handle = arbiter.acquireChunk(1)) >= 0) {
            stolen.add(handle);
        }
        return stolen;
    }

    /** Gives stolen chunks back through the full cycle: COMPLETE, read, FREE. */
    public void giveBack(List<Integer> stolen) {
        for (int h : stolen) {
            int page = ChunkArbiter.pageOf(h);
            int index = ChunkArbiter.indexOf(h);
            abi.releaseChunkAsComplete(page, index);
            assertTrue(abi.tryAcquireChunkForReading(page, index));
            assertTrue(abi.releaseChunkAsFree(page, index));
        }
        stolen.clear();
        committer.notifyChunksFreed();
    }

    @Override
    public void close() {
        committer.close();
    }
}
