package io.jtrace.shm.writer;

/**
 * A writer whose packet spans two chunks, as {@link TraceWriter} sends it: chunk X (page 0, chunk 0)
 * released, X's size patch queued as the nested message ends in chunk Y, then Y (page 0, chunk 1)
 * released; against one drain of the commit thread, then the drains that commit the rest. Lives in the
 * writer's package to play the commit thread ({@link ChunkCommitter#drainInto}).
 */
public final class PatchOrderRig {
    private static final CommitRequest.Patch PATCH_OF_X = new CommitRequest.Patch(1, 0, 8, 0x80808000, false);

    private final ChunkCommitter committer = new ChunkCommitter(1, new CommitSink() {
        @Override
        public void commit(CommitRequest request) {}

        @Override
        public void flushComplete(long requestId) {}
    }, 60_000, "jcstress-commit");
    private final CommitRequest first = new CommitRequest(4);
    private final CommitRequest later = new CommitRequest(4);

    public void writerSpansAPacketOverTwoChunks() {
        committer.chunkReleased(0, 0, 0, -1, 0);
        committer.patch(PATCH_OF_X);
        committer.chunkReleased(0, 1, 0, -1, 0);
    }

    public void commitThreadDrains() {
        committer.drainInto(first, false);
    }

    /**
     * A complete drain after the writer is done: it takes the patches the first drain carried over, then
     * every chunk. A second finds nothing left.
     */
    public void drainTheRest() {
        committer.drainInto(later, true);
        committer.drainInto(later, true);
    }

    public boolean firstHasX() {
        return has(first, 0);
    }

    public boolean firstHasThePatch() {
        return first.patches().contains(PATCH_OF_X);
    }

    public boolean firstHasY() {
        return has(first, 1);
    }

    /** Across both requests: each of X, its patch and Y exactly once. */
    public boolean allOnce() {
        int x = count(first, 0) + count(later, 0);
        int y = count(first, 1) + count(later, 1);
        long patches = first.patches().stream().filter(PATCH_OF_X::equals).count()
                + later.patches().stream().filter(PATCH_OF_X::equals).count();
        return x == 1 && y == 1 && patches == 1;
    }

    private static boolean has(CommitRequest request, int chunk) {
        return count(request, chunk) > 0;
    }

    private static int count(CommitRequest request, int chunk) {
        int n = 0;
        for (int i = 0; i < request.size(); i++) {
            if (request.page(i) == 0 && request.chunk(i) == chunk) {
                n++;
            }
        }
        return n;
    }
}
