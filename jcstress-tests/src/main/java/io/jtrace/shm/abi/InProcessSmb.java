package io.jtrace.shm.abi;

import io.jtrace.shm.writer.ChunkArbiter;
import io.jtrace.shm.writer.ChunkCommitter;
import io.jtrace.shm.writer.CommitRequest;
import io.jtrace.shm.writer.CommitSink;

/**
 * SMBs for the jcstress tests: in this process's memory, so a test can afford a fresh one for each of
 * the many states jcstress creates. Lives in the ABI's package to reach {@link SharedMemoryBuffer#inProcess}.
 */
public final class InProcessSmb {
    /** A sink that is never called: the arbiters' commit threads are never started. */
    private static final CommitSink NO_SINK = new CommitSink() {
        @Override
        public void commit(CommitRequest request) {
            throw new IllegalStateException("the jcstress tests start no commit thread");
        }

        @Override
        public void flushComplete(long requestId) {
            throw new IllegalStateException("the jcstress tests start no commit thread");
        }
    };

    private InProcessSmb() {}

    /** The ABI over a new SMB of {@code pages} 4 KiB pages, all free. */
    public static SharedMemoryAbi abi(int pages) {
        int pageSize = SharedMemoryBuffer.MIN_PAGE_SIZE;
        return new SharedMemoryAbi(SharedMemoryBuffer.inProcess(pages * pageSize, pageSize));
    }

    /**
     * An arbiter for {@code abi} whose commit thread is never started: released chunks wait in its queue,
     * which is all the writer-side tests need (and a thread per jcstress state would be far too many).
     */
    public static ChunkArbiter arbiter(SharedMemoryAbi abi) {
        return new ChunkArbiter(abi, new ChunkCommitter(abi.pageCount(), NO_SINK, 1000, "jcstress-commit"));
    }
}
