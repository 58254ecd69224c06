package io.jtrace.service.buffer;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jtrace.shm.abi.SharedMemoryAbi;
import io.jtrace.shm.abi.SharedMemoryBuffer;
import io.jtrace.shm.writer.ChunkArbiter;
import io.jtrace.shm.writer.ChunkCommitter;
import io.jtrace.shm.writer.CommitRequest;
import io.jtrace.shm.writer.CommitSink;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * A real SMB with its arbiter and commit thread, whose commit requests (writer hints included) come to
 * the test as the service would get them: for tests that move a real writer's chunks by hand. Registered
 * as an extension, it is set up before each test, in a directory of its own, and closed after it.
 */
final class WriterRig implements BeforeEachCallback, AfterEachCallback {
    private final int smbBytes;
    private final String name;
    private final LinkedBlockingQueue<CommitRequest> requests = new LinkedBlockingQueue<>();
    private Path dir;
    SharedMemoryAbi abi;
    ChunkCommitter committer;
    ChunkArbiter arbiter;

    WriterRig(int smbBytes, String name) {
        this.smbBytes = smbBytes;
        this.name = name;
    }

    @Override
    public void beforeEach(ExtensionContext context) throws IOException {
        dir = Files.createTempDirectory("writer-rig");
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
    public void afterEach(ExtensionContext context) throws IOException {
        committer.close();
        try (Stream<Path> files = Files.walk(dir)) {
            for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        }
    }
}
