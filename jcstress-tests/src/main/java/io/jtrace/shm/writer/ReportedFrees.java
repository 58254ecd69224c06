package io.jtrace.shm.writer;

/**
 * The service's side of a free for the jcstress tests, as the in-process service does it: the chunk is
 * freed in the SMB, then the free is reported with its page through a commit request. Lives in the
 * writer's package to reach the committer's free-page marks.
 */
public final class ReportedFrees {
    private ReportedFrees() {}

    /** Frees a chunk the service holds BEING_READ, then reports the free. */
    public static void freeAndReport(ChunkArbiter arbiter, int page, int chunk) {
        arbiter.abi().releaseChunkAsFree(page, chunk);
        CommitRequest request = new CommitRequest(1, arbiter.committer());
        request.add(page, chunk, 0);
        request.chunksFreed();
    }

    public static boolean isMarked(ChunkArbiter arbiter, int page) {
        return arbiter.committer().freePages().isMarked(page);
    }
}
