package io.jtrace.shm.writer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

class ChunkCommitterTest {
    /** Records commits as "page:chunk:target" and completes a future when a flush id at least {@code awaited} is acked. */
    static final class RecordingSink implements CommitSink {
        final List<String> commits = new CopyOnWriteArrayList<>();
        final List<Long> acks = new CopyOnWriteArrayList<>();
        volatile long awaited = Long.MAX_VALUE;
        volatile CompletableFuture<Long> acked = new CompletableFuture<>();

        @Override
        public void commit(CommitRequest request) {
            for (int i = 0; i < request.size(); i++) {
                commits.add(request.page(i) + ":" + request.chunk(i) + ":" + request.targetBuffer(i));
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
                    committer.chunkReleased(page, index, page % 3);
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
    void chunksAreCommittedWithoutAFlushOnceEnoughAreWaiting() throws Exception {
        RecordingSink sink = new RecordingSink();
        CompletableFuture<Void> committed = new CompletableFuture<>();
        CommitSink waiting = new CommitSink() {
            @Override
            public void commit(CommitRequest request) {
                sink.commit(request);
                if (sink.commits.size() >= 3) {
                    committed.complete(null);
                }
            }

            @Override
            public void flushComplete(long requestId) {}
        };
        try (ChunkCommitter committer = new ChunkCommitter(12, waiting, 60_000, "test-commit")) {
            committer.start();
            // 12 pages / 4 = 3 waiting chunks wake the thread. The just-started thread may take chunk 0
            // in its first round before parking for the whole period; a 4th chunk makes sure 3 wait
            // together after that, so only the threshold wake-up can complete this in time.
            for (int i = 0; i < 4; i++) {
                committer.chunkReleased(i, 0, 0);
            }
            committed.get(60, TimeUnit.SECONDS);
            assertEquals(List.of("0:0:0", "1:0:0", "2:0:0"), sink.commits.subList(0, 3));
        }
    }

    @Test
    void closeCommitsWhatIsStillQueued() {
        RecordingSink sink = new RecordingSink();
        ChunkCommitter committer = new ChunkCommitter(64, sink, 3_600_000, "test-commit");
        committer.start();
        committer.chunkReleased(5, 2, 9);
        committer.close();
        assertEquals(List.of("5:2:9"), sink.commits);
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
            committer.chunkReleased(0, 0, 0);
            committer.requestFlush(1);
            failed.get(60, TimeUnit.SECONDS);
            committer.chunkReleased(1, 1, 0);
            sink.flushAndWait(committer, 2);
            assertTrue(sink.commits.contains("1:1:0"), "chunk released after the failure committed: " + sink.commits);
        }
    }
}
