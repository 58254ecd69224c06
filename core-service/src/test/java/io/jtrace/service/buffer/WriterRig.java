package io.jtrace.service.buffer;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jtrace.shm.abi.SharedMemoryAbi;
import io.jtrace.shm.abi.SharedMemoryBuffer;
import io.jtrace.shm.writer.ChunkArbiter;
import io.jtrace.shm.writer.ChunkCommitter;
import io.jtrace.shm.writer.CommitRequest;
import io.jtrace.shm.writer.CommitSink;
import java.io.IOException;
import java.nio.file.Path;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * A real SMB with its arbiter and commit thread, whose commit requests (writer hints included) come to
 * the test as the service would get them: for tests that move a real writer's chunks by hand.
 */
final class WriterRig implements AutoCloseable {
    final SharedMemoryAbi abi;
    final ChunkCommitter committer;
    final ChunkArbiter arbiter;
    private final LinkedBlockingQueue<CommitRequest> requests = new LinkedBlockingQueue<>();

    WriterRig(Path dir, int smbBytes, String name) throws IOException {
        abi = new SharedMemoryAbi(SharedMemoryBuffer.create(dir, smbBytes, 4096));
        committer = new ChunkCommitter(abi.pageCount(), new CommitSink() {
            @Override
            public void commit(CommitRequest request) {
                requests.add(request);
            }

            @Override
            public void flushComplete(long requestId) {}
        }, 5, name);
        arbiter = new ChunkArbiter(abi, committer);
        committer.start();
    }

    /** The commit thread's next request; fails the test if none comes within 30 s. */
    CommitRequest nextRequest() throws InterruptedException {
        CommitRequest r = requests.poll(30, TimeUnit.SECONDS);
        assertTrue(r != null, "the commit thread committed the writer's chunks");
        return r;
    }

    @Override
    public void close() {
        committer.close();
    }
}
