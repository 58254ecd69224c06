package io.jtrace.shm.writer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jtrace.shm.abi.PageHeader;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import org.jctools.queues.atomic.MpscAtomicArrayQueue;
import org.junit.jupiter.api.Test;

class ChunkCommitterTest {
    /** Records commits as "page:chunk:target" (patches as "patch:writer:chunk"), one list per request, and completes a future when a flush id at least {@code awaited} is acked. */
    static class RecordingSink implements CommitSink {
        final List<String> commits = new CopyOnWriteArrayList<>();
        final List<String> patches = new CopyOnWriteArrayList<>();
        final List<List<String>> requests = new CopyOnWriteArrayList<>();
        final List<Long> acks = new CopyOnWriteArrayList<>();
        volatile long awaited = Long.MAX_VALUE;
        volatile CompletableFuture<Long> acked = new CompletableFuture<>();
        volatile int awaitedCommits = Integer.MAX_VALUE;
        final CompletableFuture<Void> commitsArrived = new CompletableFuture<>();

        /** Completes once at least {@code count} chunks have been committed. */
        CompletableFuture<Void> awaitCommits(int count) {
            awaitedCommits = count;
            if (commits.size() >= count) {
                commitsArrived.complete(null);
            }
            return commitsArrived;
        }

        @Override
        public void commit(CommitRequest request) {
            List<String> entries = new ArrayList<>();
            for (int i = 0; i < request.size(); i++) {
                String chunk = request.page(i) + ":" + request.chunk(i) + ":" + request.targetBuffer(i);
                commits.add(chunk);
                entries.add(chunk);
            }
            for (CommitRequest.Patch p : request.patches()) {
                String patch = "patch:" + p.writerId() + ":" + p.chunkId();
                patches.add(patch);
                entries.add(patch);
            }
            for (int i = 0; i < request.retiredWriterCount(); i++) {
                entries.add("retired:" + request.retiredWriter(i));
            }
            requests.add(entries);
            if (commits.size() >= awaitedCommits) {
                commitsArrived.complete(null);
            }
        }

        @Override
        public void flushComplete(long requestId) {
            acks.add(requestId);
            if (requestId >= awaited) {
                acked.complete(requestId);
            }
        }

        void flushAndWait(ChunkCommitter committer, long id) throws Exception {
            acked = new CompletableFuture<>();
            awaited = id;
            committer.requestFlush(id);
            acked.get(60, TimeUnit.SECONDS); // liveness only
        }
    }

    @Test
    void flushIsAcknowledgedOnceEveryChunkReleasedBeforeItIsCommitted() throws Exception {
        RecordingSink sink = new RecordingSink();
        try (ChunkCommitter committer = new ChunkCommitter(8, sink, 60_000, "test-commit")) {
            committer.start();
            List<String> expected = new ArrayList<>();
            for (int page = 0; page < 8; page++) {
                for (int index = 0; index < 14; index += 3) {
                    committer.chunkReleased(page, index, page % 3, -1, 0);
                    expected.add(page + ":" + index + ":" + page % 3);
                }
            }
            sink.flushAndWait(committer, 1);
            assertEquals(expected, sink.commits, "all chunks, in release order");
        }
    }

    @Test
    void flushAcksAreInIncreasingOrderAndCoverTheLatestRequest() throws Exception {
        RecordingSink sink = new RecordingSink();
        try (ChunkCommitter committer = new ChunkCommitter(4, sink, 60_000, "test-commit")) {
            committer.start();
            committer.requestFlush(1);
            committer.requestFlush(2);
            sink.flushAndWait(committer, 3);
            List<Long> acks = new ArrayList<>(sink.acks);
            for (int i = 1; i < acks.size(); i++) {
                assertTrue(acks.get(i) > acks.get(i - 1), "acks " + acks);
            }
            assertEquals(3L, acks.get(acks.size() - 1));
        }
    }

    @Test
    void aSinkThatFreedARequestsChunksLetsFullWritersLookAgainBeforeItReleasesTheRequest() throws Exception {
        CompletableFuture<long[]> epochs = new CompletableFuture<>();
        CommitSink freeing = new CommitSink() {
            @Override
            public void commit(CommitRequest request) {
                // On the commit thread, which is the only other thread that advances the epoch.
                long before = committerUnderTest.freeEpoch();
                request.chunksFreed();
                epochs.complete(new long[] {before, committerUnderTest.freeEpoch()});
            }

            @Override
            public void flushComplete(long requestId) {}
        };
        try (ChunkCommitter committer = new ChunkCommitter(4, freeing, 60_000, "test-commit")) {
            committerUnderTest = committer;
            committer.start();
            committer.chunkReleased(0, 0, 0, -1, 0);
            committer.requestFlush(1);
            long[] seen = epochs.get(60, TimeUnit.SECONDS);
            assertEquals(seen[0] + 1, seen[1], "chunksFreed advanced the epoch writers check before scanning a full SMB");
        }
    }

    private volatile ChunkCommitter committerUnderTest;

    @Test
    void chunksAreCommittedWithoutAFlushOnceEnoughAreWaiting() throws Exception {
        RecordingSink sink = new RecordingSink();
        CompletableFuture<Void> committed = sink.awaitCommits(3);
        try (ChunkCommitter committer = new ChunkCommitter(48, sink, 3_600_000, "test-commit")) {
            committer.start();
            // 48 pages / 16 = 3 waiting chunks wake the thread, which would otherwise sleep for the whole
            // hour: only the threshold wake-up can complete this within the minute waited.
            for (int i = 0; i < 3; i++) {
                committer.chunkReleased(i, 0, 0, -1, 0);
            }
            committed.get(60, TimeUnit.SECONDS);
            assertEquals(List.of("0:0:0", "1:0:0", "2:0:0"), sink.commits.subList(0, 3));
        }
    }

    @Test
    void afterABatchTheChunksReleasedMeanwhileWaitForTheThresholdInsteadOfGoingOutAtOnce() throws Exception {
        RecordingSink sink = new RecordingSink();
        CompletableFuture<Void> firstRequest = new CompletableFuture<>();
        CompletableFuture<Void> allEight = sink.awaitCommits(8);
        CommitSink releasingDuringCommit = new CommitSink() {
            @Override
            public void commit(CommitRequest request) {
                boolean first = sink.requests.isEmpty();
                sink.commit(request);
                if (first) {
                    // A writer releases a chunk while the service takes the batch: it is queued when the
                    // commit thread comes back from this call.
                    committerUnderTest.chunkReleased(9, 0, 0, -1, 0);
                    firstRequest.complete(null);
                }
            }

            @Override
            public void flushComplete(long requestId) {}
        };
        // 64 pages / 16 = 4 chunks make a batch; the period (an hour) never ends during the test.
        try (ChunkCommitter committer = new ChunkCommitter(64, releasingDuringCommit, 3_600_000, "test-commit")) {
            committerUnderTest = committer;
            committer.start();
            for (int i = 0; i < 4; i++) {
                committer.chunkReleased(i, 0, 0, -1, 0);
            }
            firstRequest.get(60, TimeUnit.SECONDS);
            for (int i = 10; i < 13; i++) {
                committer.chunkReleased(i, 0, 0, -1, 0);
            }
            allEight.get(60, TimeUnit.SECONDS);
            // Committing whatever was queued would have sent chunk 9 alone (thousands of such requests a
            // second under a steady stream, each waking the service). It goes with the chunks after it; the
            // last of them only in a request of its own if the commit thread looked while its slot was
            // claimed and not yet filled.
            assertEquals(List.of("9:0:0", "10:0:0", "11:0:0", "12:0:0"), sink.commits.subList(4, 8));
            assertTrue(sink.requests.get(1).size() >= 3, "chunk 9 went out without the chunks after it: " + sink.requests);
        }
    }

    @Test
    void aStallingWritersWakeUpCommitsTheQueueBelowTheThreshold() throws Exception {
        RecordingSink sink = new RecordingSink();
        CompletableFuture<Void> committed = sink.awaitCommits(1);
        try (ChunkCommitter committer = new ChunkCommitter(64, sink, 3_600_000, "test-commit")) {
            committer.start();
            committer.chunkReleased(7, 1, 0, -1, 0);
            // One chunk of a batch of four, and an hour's period: only the wake-up sends it.
            committer.wakeUp();
            committed.get(60, TimeUnit.SECONDS);
            assertEquals(List.of("7:1:0"), sink.commits);
        }
    }

    @Test
    void closeCommitsWhatIsStillQueued() {
        RecordingSink sink = new RecordingSink();
        ChunkCommitter committer = new ChunkCommitter(64, sink, 3_600_000, "test-commit");
        committer.start();
        committer.chunkReleased(5, 2, 9, -1, 0);
        committer.close();
        assertEquals(List.of("5:2:9"), sink.commits);
    }

    @Test
    void aFlushRequestedAsTheThreadStopsIsStillAcknowledgedAfterItsChunks() {
        RecordingSink sink = new RecordingSink();
        ChunkCommitter committer = new ChunkCommitter(64, sink, 3_600_000, "test-commit");
        committer.start();
        committer.chunkReleased(4, 1, 2, -1, 0);
        // The loop may take the flush before it sees the stop, or only its last drain may: acked either way.
        committer.requestFlush(7);
        committer.close();
        assertEquals(List.of("4:1:2"), sink.commits);
        assertEquals(List.of(7L), sink.acks);
    }

    @Test
    void commitThreadSurvivesASinkThatThrows() throws Exception {
        RecordingSink sink = new RecordingSink();
        AtomicBoolean failNext = new AtomicBoolean(true);
        CompletableFuture<Void> failed = new CompletableFuture<>();
        CommitSink flaky = new CommitSink() {
            @Override
            public void commit(CommitRequest request) {
                if (failNext.getAndSet(false)) {
                    failed.complete(null);
                    throw new RuntimeException("simulated IPC failure");
                }
                sink.commit(request);
            }

            @Override
            public void flushComplete(long requestId) {
                sink.flushComplete(requestId);
            }
        };
        try (ChunkCommitter committer = new ChunkCommitter(4, flaky, 60_000, "test-commit")) {
            committer.start();
            committer.chunkReleased(0, 0, 0, -1, 0);
            committer.requestFlush(1);
            failed.get(60, TimeUnit.SECONDS);
            committer.chunkReleased(1, 1, 0, -1, 0);
            sink.flushAndWait(committer, 2);
            assertTrue(sink.commits.contains("1:1:0"), "chunk released after the failure committed: " + sink.commits);
        }
    }

    private static CommitRequest.Patch patch(int writerId, int chunkId) {
        return new CommitRequest.Patch(writerId, chunkId, 4, 0x00808080, false);
    }

    private static int requestOf(List<List<String>> requests, String entry) {
        for (int i = 0; i < requests.size(); i++) {
            if (requests.get(i).contains(entry)) {
                return i;
            }
        }
        throw new AssertionError(entry + " never committed: " + requests);
    }

    @Test
    void aPatchQueuedAfterItsChunkGoesOutInTheSameRequestOrALaterOne() throws Exception {
        RecordingSink sink = new RecordingSink();
        try (ChunkCommitter committer = new ChunkCommitter(4, sink, 60_000, "test-commit")) {
            committer.start();
            for (int i = 0; i < 200; i++) {
                committer.chunkReleased(i % 4, i % 14, 1, -1, 0);
                committer.patch(patch(7, i));
                sink.flushAndWait(committer, i + 1);
                int chunkRequest = requestOf(sink.requests, (i % 4) + ":" + (i % 14) + ":1");
                int patchRequest = requestOf(sink.requests, "patch:7:" + i);
                assertTrue(patchRequest >= chunkRequest, "patch in request " + patchRequest + ", its chunk in " + chunkRequest);
                List<String> request = sink.requests.get(patchRequest);
                if (patchRequest == chunkRequest) {
                    assertTrue(request.indexOf("patch:7:" + i) > request.indexOf((i % 4) + ":" + (i % 14) + ":1"));
                }
                sink.requests.clear();
            }
        }
    }

    /**
     * The writer's order for a packet whose nested message spans two chunks: chunk 0:0 (id 0) released,
     * its patch queued as the message ends in chunk 0:1, then 0:1 released. A drain that took the patches
     * before the writer queued that one and the chunks after it released 0:1 must not send 0:1 without
     * the patch: the service cannot read the sequence past chunk 0, and a ring streamed into a file then
     * overwrites it and the chunks after it (RecordCommandTest's lost bursts).
     */
    @Test
    void aChunkReleasedAfterThePatchOfTheChunkBeforeItGoesOutWithThatPatch() throws Exception {
        RecordingSink sink = new RecordingSink();
        QueueWithAWriterInsideTheDrain released = new QueueWithAWriterInsideTheDrain(16 * PageHeader.MAX_CHUNKS_PER_PAGE);
        try (ChunkCommitter committer = new ChunkCommitter(16, sink, 60_000, "test-commit", released)) {
            released.beforeFirstPoll = () -> {
                committer.patch(patch(7, 0));
                committer.chunkReleased(0, 1, 1, -1, 0);
            };
            committer.start();
            committer.chunkReleased(0, 0, 1, -1, 0); // the wake threshold of 16 pages is one chunk: a drain now
            awaitCommitted(sink, "0:0:1");
            sink.flushAndWait(committer, 1); // requested after the patch: everything is out
            int next = requestOf(sink.requests, "0:1:1");
            int patch = requestOf(sink.requests, "patch:7:0");
            assertTrue(patch <= next, "chunk 0:1 went out in request " + next + ", the patch of the chunk before it in "
                    + patch + ": " + sink.requests);
            assertTrue(requestOf(sink.requests, "0:0:1") <= patch, sink.requests.toString());
        }
    }

    /**
     * The converse: a patch queued after the drain's last look at the chunks, for a chunk released after
     * that look, waits for the drain that takes the chunk (a patch ahead of its chunk finds nothing to patch),
     * and its writer's retirement does not overtake it.
     */
    @Test
    void aPatchQueuedAfterTheDrainTookTheChunksWaitsForItsChunkAndGoesOutNoLaterThanItsWritersRetirement() throws Exception {
        RecordingSink sink = new RecordingSink();
        QueueWithAWriterInsideTheDrain released = new QueueWithAWriterInsideTheDrain(16 * PageHeader.MAX_CHUNKS_PER_PAGE);
        try (ChunkCommitter committer = new ChunkCommitter(16, sink, 60_000, "test-commit", released)) {
            released.whenFirstEmpty = () -> {
                committer.chunkReleased(0, 2, 1, -1, 0);
                committer.patch(patch(7, 2));
                committer.retireWriter(7); // the writer closes: its retirement follows its patch
            };
            committer.start();
            committer.chunkReleased(0, 0, 1, -1, 0);
            awaitCommitted(sink, "0:0:1"); // that drain, not a flush's: it takes no chunk queued after its last look
            sink.flushAndWait(committer, 1); // requested after the patch: everything is out
            int chunk = requestOf(sink.requests, "0:2:1");
            int patch = requestOf(sink.requests, "patch:7:2");
            assertTrue(chunk <= patch, "the patch went out in request " + patch + ", its chunk in " + chunk + ": "
                    + sink.requests);
            // The service applies a request's patches before its retirements: a carried patch goes out with
            // its writer's retirement or before it, never after.
            assertTrue(patch <= requestOf(sink.requests, "retired:7"), sink.requests.toString());
        }
    }

    /** The released-chunk queue, with a writer that acts inside the commit thread's drain, at a given poll. */
    static final class QueueWithAWriterInsideTheDrain extends MpscAtomicArrayQueue<ChunkCommitter.ChunkRef> {
        /** Runs once, at the drain's first look at the chunks (after it took the patches queued then). */
        volatile Runnable beforeFirstPoll;
        /** Runs once, when a look first finds no chunk (the drain then stops taking chunks). */
        volatile Runnable whenFirstEmpty;

        QueueWithAWriterInsideTheDrain(int capacity) {
            super(capacity);
        }

        @Override
        public ChunkCommitter.ChunkRef relaxedPoll() {
            Runnable before = beforeFirstPoll;
            if (before != null) {
                beforeFirstPoll = null;
                before.run();
            }
            ChunkCommitter.ChunkRef ref = super.relaxedPoll();
            Runnable empty = whenFirstEmpty;
            if (ref == null && empty != null) {
                whenFirstEmpty = null;
                empty.run();
            }
            return ref;
        }
    }

    @Test
    void aRequestWithOnlyPatchesIsCommitted() throws Exception {
        RecordingSink sink = new RecordingSink();
        try (ChunkCommitter committer = new ChunkCommitter(4, sink, 60_000, "test-commit")) {
            committer.start();
            committer.chunkReleased(0, 0, 0, -1, 0);
            sink.flushAndWait(committer, 1);
            committer.patch(patch(3, 0));
            committer.patch(new CommitRequest.Patch(3, 0, 8, 0x00808081, true));
            sink.flushAndWait(committer, 2);
            // The committer may take the first patch before the second is queued: one request or two.
            assertEquals(List.of("0:0:0"), sink.requests.get(0));
            assertEquals(List.of("patch:3:0", "patch:3:0"),
                    sink.requests.subList(1, sink.requests.size()).stream().flatMap(List::stream).toList());
        }
    }

    @Test
    void flushAckCoversPatchesQueuedBeforeTheFlush() throws Exception {
        RecordingSink sink = new RecordingSink();
        // A commit period of an hour: only the flush makes anything go out.
        try (ChunkCommitter committer = new ChunkCommitter(4, sink, 3_600_000, "test-commit")) {
            committer.start();
            for (int round = 1; round <= 50; round++) {
                for (int i = 0; i < 5; i++) {
                    committer.patch(patch(round, i));
                }
                sink.flushAndWait(committer, round);
                assertEquals(5 * round, sink.patches.size(), "round " + round + ": every patch queued before the flush");
            }
        }
    }

    @Test
    void closeCommitsPatchesStillQueued() {
        RecordingSink sink = new RecordingSink();
        ChunkCommitter committer = new ChunkCommitter(4, sink, 3_600_000, "test-commit");
        committer.start();
        committer.patch(patch(1, 1));
        committer.close();
        assertEquals(List.of("patch:1:1"), sink.patches);
    }

    @Test
    void requestsTheSinkReleasesAreReusedWithoutStaleChunksOrPatches() throws Exception {
        RecordingSink recorder = new RecordingSink();
        java.util.Set<CommitRequest> distinct = java.util.Collections.newSetFromMap(new java.util.IdentityHashMap<>());
        int[] requests = {0};
        CommitSink releasing = new CommitSink() {
            @Override
            public void commit(CommitRequest request) {
                recorder.commit(request);
                distinct.add(request);
                requests[0]++;
                request.release();
            }

            @Override
            public void flushComplete(long requestId) {
                recorder.flushComplete(requestId);
            }
        };
        try (ChunkCommitter committer = new ChunkCommitter(4, releasing, 60_000, "test-commit")) {
            committer.start();
            List<String> expectedChunks = new ArrayList<>();
            List<String> expectedPatches = new ArrayList<>();
            for (int round = 0; round < 100; round++) {
                committer.chunkReleased(round % 4, round % 14, round, -1, 0);
                expectedChunks.add(round % 4 + ":" + round % 14 + ":" + round);
                if (round % 3 == 0) {
                    committer.patch(patch(1, round));
                    expectedPatches.add("patch:1:" + round);
                }
                recorder.flushAndWait(committer, round + 1);
            }
            assertEquals(expectedChunks, recorder.commits, "each chunk exactly once");
            assertEquals(expectedPatches, recorder.patches, "each patch exactly once");
            assertTrue(distinct.size() < requests[0], "released requests were reused: " + distinct.size() + " objects for "
                    + requests[0] + " requests");
        }
    }

    @Test
    void aRetiredWriterIdComesBackOnlyAfterTheCommitThatRetiresItWhichFollowsItsChunks() throws Exception {
        List<String> freedBeforeCommit = new CopyOnWriteArrayList<>();
        List<Integer> freed = new CopyOnWriteArrayList<>();
        RecordingSink sink = new RecordingSink() {
            private int retirementsCommitted;

            @Override
            public void commit(CommitRequest request) {
                // Every id freed so far belongs to a retirement of an earlier commit.
                if (freed.size() != retirementsCommitted) {
                    freedBeforeCommit.add(freed.size() + " ids freed after " + retirementsCommitted + " retirements");
                }
                retirementsCommitted += request.retiredWriterCount();
                super.commit(request);
            }
        };
        try (ChunkCommitter committer = new ChunkCommitter(4, sink, 60_000, "test-commit")) {
            committer.onWriterIdsReleased(freed::add);
            committer.start();
            for (int round = 0; round < 30; round++) {
                int writerId = 1 + round % 7;
                committer.chunkReleased(round % 4, 0, 1, -1, 0);
                committer.retireWriter(writerId);
                sink.flushAndWait(committer, round + 1);
                // The writer's chunk is in the request that retires it, or in an earlier one.
                List<String> all = new ArrayList<>();
                sink.requests.forEach(all::addAll);
                int chunkAt = all.lastIndexOf(round % 4 + ":0:1");
                int retiredAt = all.lastIndexOf("retired:" + writerId);
                assertTrue(chunkAt >= 0 && retiredAt > chunkAt, "round " + round + ": " + all);
                assertEquals(round + 1, freed.size(), "the id came back after its commit");
                assertEquals(writerId, (int) freed.get(round));
                sink.requests.clear();
            }
            assertEquals(List.of(), freedBeforeCommit, "an id freed before the service heard of its retirement");
        }
    }

    /**
     * Writers on more threads than cores release chunks and queue a patch for each right after, as
     * TraceWriter does, and now and then ask for a flush. Preempted between claiming a queue slot and
     * storing its chunk, a writer leaves a gap the commit thread may skip, except where it must not (a
     * flush, a patch, a retirement). Exact checks on every release: a patch is never committed before its
     * chunk, and a flush ack covers every chunk released before the request.
     */
    @Test
    void writersPreemptedMidReleaseNeitherSeparateAPatchFromItsChunkNorEscapeAFlush() throws Exception {
        int threads = 8;
        int pagesPerThread = 8;
        int slotsPerThread = pagesPerThread * PageHeader.MAX_CHUNKS_PER_PAGE;
        int releasesPerThread = 4000;
        AtomicIntegerArray committedGeneration = new AtomicIntegerArray(threads * slotsPerThread);
        List<String> violations = new CopyOnWriteArrayList<>();
        AtomicLong maxAck = new AtomicLong();
        CommitSink sink = new CommitSink() {
            @Override
            public void commit(CommitRequest request) {
                for (int i = 0; i < request.size(); i++) {
                    int slot = request.page(i) * PageHeader.MAX_CHUNKS_PER_PAGE + request.chunk(i);
                    committedGeneration.incrementAndGet(slot);
                }
                for (CommitRequest.Patch patch : request.patches()) {
                    int slot = patch.chunkId() / 10_000;
                    int generation = patch.chunkId() % 10_000;
                    if (committedGeneration.get(slot) < generation) {
                        violations.add("patch for slot " + slot + " use " + generation + " before its chunk");
                    }
                }
                request.release();
            }

            @Override
            public void flushComplete(long requestId) {
                maxAck.accumulateAndGet(requestId, Math::max);
            }
        };
        AtomicLong flushIds = new AtomicLong();
        try (ChunkCommitter committer = new ChunkCommitter(threads * pagesPerThread, sink, 60_000, "test-commit")) {
            committer.start();
            List<Thread> writers = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                int first = t * slotsPerThread;
                writers.add(new Thread(() -> {
                    int[] released = new int[slotsPerThread];
                    for (int n = 0; n < releasesPerThread; n++) {
                        int slot = first + n % slotsPerThread;
                        int generation = ++released[n % slotsPerThread];
                        // A slot is queued at most once: its previous use must have been committed.
                        while (committedGeneration.get(slot) < generation - 1) {
                            Thread.onSpinWait();
                        }
                        committer.chunkReleased(slot / PageHeader.MAX_CHUNKS_PER_PAGE, slot % PageHeader.MAX_CHUNKS_PER_PAGE, 1, -1, 0);
                        if (n % 3 == 0) {
                            // Not every release: a flush must take everything on its own, not because a
                            // patch in the same drain made it.
                            committer.patch(new CommitRequest.Patch(1, slot * 10_000 + generation, 0, 0, false));
                        }
                        if (n % 50 == 49) {
                            long id = flushIds.incrementAndGet();
                            committer.requestFlush(id);
                            while (maxAck.get() < id) {
                                Thread.onSpinWait();
                            }
                            if (committedGeneration.get(slot) < generation) {
                                violations.add("flush " + id + " acked without slot " + slot + " use " + generation);
                            }
                        }
                    }
                }, "writer-" + t));
            }
            writers.forEach(Thread::start);
            for (Thread w : writers) {
                w.join(TimeUnit.MINUTES.toMillis(2));
                assertTrue(!w.isAlive(), w.getName() + " stuck: the commit thread stopped taking chunks");
            }
        }
        assertEquals(List.of(), violations);
        int committed = 0;
        for (int i = 0; i < committedGeneration.length(); i++) {
            committed += committedGeneration.get(i);
        }
        assertEquals(threads * releasesPerThread, committed, "every release committed exactly once");
    }

    /**
     * The released-chunk queue with one slot that looks claimed but not yet stored, as a writer preempted
     * inside its offer leaves it: not empty, yet relaxedPoll() stops there until the slot is let go.
     */
    static final class QueueWithAClaimedSlot extends MpscAtomicArrayQueue<ChunkCommitter.ChunkRef> {
        volatile int heldPage = -1;
        volatile int heldIndex = -1;

        QueueWithAClaimedSlot(int capacity) {
            super(capacity);
        }

        @Override
        public ChunkCommitter.ChunkRef relaxedPoll() {
            ChunkCommitter.ChunkRef next = relaxedPeek();
            if (next != null && next.page == heldPage && next.index == heldIndex) {
                return null;
            }
            return super.relaxedPoll();
        }

        void holdNext(int page, int index) {
            heldIndex = index;
            heldPage = page;
        }

        void letGo() {
            heldPage = -1;
        }
    }

    @Test
    void chunksBeforeAClaimedSlotGoOutWithoutWaitingButAFlushWaitsForIt() throws Exception {
        RecordingSink sink = new RecordingSink();
        QueueWithAClaimedSlot queue = new QueueWithAClaimedSlot(16 * PageHeader.MAX_CHUNKS_PER_PAGE);
        try (ChunkCommitter committer = startedHoldingSlot1(sink, queue)) {
            committer.chunkReleased(0, 0, 1, -1, 0);
            committer.chunkReleased(0, 1, 1, -1, 0); // claimed, not stored yet
            committer.chunkReleased(0, 2, 1, -1, 0);
            awaitCommitted(sink, "0:0:1"); // the wake threshold of 16 pages is one chunk
            committer.requestFlush(1);
            Thread.sleep(200); // the flush must not be acked while the claimed slot is empty
            assertEquals(List.of(), sink.acks, "acked before a chunk released ahead of the request");
            assertEquals(List.of("0:0:1"), sink.commits, "nothing behind the claimed slot yet");
            sink.awaited = 1;
            queue.letGo();
            sink.acked.get(60, TimeUnit.SECONDS); // liveness only
            assertEquals(List.of("0:0:1", "0:1:1", "0:2:1"), sink.commits);
        }
    }

    @Test
    void aPatchBehindAClaimedSlotWaitsWithItsChunkForTheSlot() throws Exception {
        assertGoesOutOnlyWithTheChunkBehindAClaimedSlot(committer -> committer.patch(patch(5, 2)), "patch:5:2");
    }

    @Test
    void aRetirementBehindAClaimedSlotWaitsWithItsWritersChunkForTheSlot() throws Exception {
        assertGoesOutOnlyWithTheChunkBehindAClaimedSlot(committer -> committer.retireWriter(6), "retired:6");
    }

    /**
     * Chunk 0:2 is stored behind another writer's slot 0:1, claimed and not stored yet; {@code queue}
     * then queues {@code entry}, which needs that chunk to go out first (its patch, its writer's retirement).
     */
    private static void assertGoesOutOnlyWithTheChunkBehindAClaimedSlot(Consumer<ChunkCommitter> queue, String entry)
            throws Exception {
        RecordingSink sink = new RecordingSink();
        QueueWithAClaimedSlot released = new QueueWithAClaimedSlot(16 * PageHeader.MAX_CHUNKS_PER_PAGE);
        try (ChunkCommitter committer = startedHoldingSlot1(sink, released)) {
            committer.chunkReleased(0, 1, 1, -1, 0);
            committer.chunkReleased(0, 2, 1, -1, 0);
            queue.accept(committer);
            Thread.sleep(200);
            for (List<String> request : sink.requests) {
                assertTrue(!request.contains(entry), entry + " went out ahead of its chunk: " + sink.requests);
            }
            released.letGo();
            sink.flushAndWait(committer, 1);
            List<String> all = new ArrayList<>();
            sink.requests.forEach(all::addAll);
            assertTrue(all.indexOf("0:2:1") >= 0 && all.indexOf("0:2:1") < all.indexOf(entry), all.toString());
        }
    }

    /** A started committer of 16 pages (it wakes for every chunk) whose queue will hold back chunk 1 of page 0. */
    private static ChunkCommitter startedHoldingSlot1(RecordingSink sink, QueueWithAClaimedSlot queue) {
        ChunkCommitter committer = new ChunkCommitter(16, sink, 60_000, "test-commit", queue);
        committer.start();
        queue.holdNext(0, 1);
        return committer;
    }

    private static void awaitCommitted(RecordingSink sink, String chunk) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (!sink.commits.contains(chunk)) {
            assertTrue(System.nanoTime() < deadline, chunk + " never committed"); // liveness only
            Thread.sleep(1);
        }
    }
}
