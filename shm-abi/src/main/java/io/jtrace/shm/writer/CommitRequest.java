package io.jtrace.shm.writer;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * A batch of chunks released by writers, to be moved by the service from the SMB into trace buffers,
 * and of patches for size fields left open in chunks committed earlier. The Java form of Perfetto's
 * {@code CommitDataRequest}: chunks_to_move entries are (page, chunk index, target buffer id); patches
 * are (writer id, chunk id, offset into the chunk's payload, 4 bytes as a little-endian int, whether
 * more patches for that chunk follow); retired writers are Perfetto's {@code UnregisterTraceWriter},
 * carried in the same request so they are ordered after the writer's last chunks and patches. The
 * service applies the chunks, then the patches, then the retirements.
 */
public final class CommitRequest {
    private int[] pages;
    private int[] chunks;
    private int[] targetBuffers;
    private int[] payloadEnds;
    private int[] sequenceIds;
    private int count;
    private final List<Patch> patches = new ArrayList<>();
    private int[] retiredWriters = new int[4];
    private int retiredCount;

    /** A size field to fill in a chunk already committed. */
    public record Patch(int writerId, int chunkId, int offset, int value, boolean hasMorePatches) {}

    /**
     * The commit thread that built the request: told where chunks were freed, and given the request back
     * for reuse ({@link #release()}). Null for a request made by hand.
     */
    private final ChunkCommitter committer;
    /** Whether the sink said it freed the chunks ({@link #chunksFreed()}); the sink's thread only. */
    private boolean freesReported;

    public CommitRequest(int capacity) {
        this(capacity, null);
    }

    CommitRequest(int capacity, ChunkCommitter committer) {
        this.committer = committer;
        int n = Math.max(capacity, 1);
        pages = new int[n];
        chunks = new int[n];
        targetBuffers = new int[n];
        payloadEnds = new int[n];
        sequenceIds = new int[n];
    }

    /** A chunk to move, without read-out hints (as over IPC: the service walks its frames). */
    public void add(int page, int chunk, int targetBuffer) {
        add(page, chunk, targetBuffer, -1, 0);
    }

    /**
     * A chunk to move, with its writer's read-out hints: {@code payloadEnd}, where its whole packets end
     * (from the payload's start; -1 if unknown, or if a drop marker or a continuing packet is among them),
     * which bounds what a ring keeps of the chunk, and which a service that trusts the producer also reads
     * its packets by; and {@code sequenceId}, the id its writer wrote into their slots (0 for none), taken
     * only from a trusted producer. Not part of Perfetto's CommitDataRequest: the payload end travels in a
     * field of jtrace's, the sequence id stays in-process.
     */
    public void add(int page, int chunk, int targetBuffer, int payloadEnd, int sequenceId) {
        if (count == pages.length) {
            int n = count * 2;
            pages = Arrays.copyOf(pages, n);
            chunks = Arrays.copyOf(chunks, n);
            targetBuffers = Arrays.copyOf(targetBuffers, n);
            payloadEnds = Arrays.copyOf(payloadEnds, n);
            sequenceIds = Arrays.copyOf(sequenceIds, n);
        }
        pages[count] = page;
        chunks[count] = chunk;
        targetBuffers[count] = targetBuffer;
        payloadEnds[count] = payloadEnd;
        sequenceIds[count] = sequenceId;
        count++;
    }

    public int size() {
        return count;
    }

    public int page(int i) {
        return pages[i];
    }

    public int chunk(int i) {
        return chunks[i];
    }

    public int targetBuffer(int i) {
        return targetBuffers[i];
    }

    public int payloadEnd(int i) {
        return payloadEnds[i];
    }

    public int sequenceId(int i) {
        return sequenceIds[i];
    }

    public void addPatch(Patch patch) {
        patches.add(patch);
    }

    public List<Patch> patches() {
        return patches;
    }

    /** A writer that closed: every chunk and patch it sent is in this request or an earlier one. */
    public void addRetiredWriter(int writerId) {
        if (retiredCount == retiredWriters.length) {
            retiredWriters = Arrays.copyOf(retiredWriters, retiredCount * 2);
        }
        retiredWriters[retiredCount++] = writerId;
    }

    public int retiredWriterCount() {
        return retiredCount;
    }

    public int retiredWriter(int i) {
        return retiredWriters[i];
    }

    /**
     * Called by the sink once it is done with the request (it must not touch it afterwards): the commit
     * thread reuses it, so steady-state committing allocates nothing. A sink that never calls this only
     * leaves the request to the garbage collector.
     */
    public void release() {
        if (committer != null) {
            if (!freesReported) {
                // A sink that failed half-way, or moves the chunks later (a service in another process):
                // the request's pages are the ones it may have freed, or may free.
                committer.chunksFreed(this, false);
            }
            freesReported = false;
            committer.retiredWritersHandled(this);
            count = 0;
            retiredCount = 0;
            patches.clear();
            committer.recycle(this);
        }
    }

    /**
     * Called by the sink as soon as it has freed the request's chunks in the SMB, before any slower work
     * it does next (such as writing a file): writers that found the SMB full look for a free chunk again
     * from now on, in the request's pages, instead of dropping until the request is released. A sink that
     * calls this frees chunks only through requests, in this process: the writers then stop looking
     * through every page on the commit thread's period (see {@link ChunkCommitter}).
     */
    public void chunksFreed() {
        if (committer != null) {
            freesReported = true;
            committer.chunksFreed(this, true);
        }
    }

    public boolean isEmpty() {
        return count == 0 && patches.isEmpty() && retiredCount == 0;
    }

    @Override
    public String toString() {
        return "CommitRequest{" + count + " chunks, " + patches.size() + " patches, " + retiredCount
                + " retired writers}";
    }
}
