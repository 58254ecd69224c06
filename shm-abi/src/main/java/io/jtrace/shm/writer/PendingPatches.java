package io.jtrace.shm.writer;

import java.util.ArrayDeque;
import org.jctools.queues.atomic.MpscUnboundedAtomicArrayQueue;

/**
 * The patches writers queued for the commit thread, each with the place in the released-chunk queue
 * that its chunk is below. A patch must not go out before its chunk (the service would find nothing to
 * patch), and the chunk in which the patched message ends must not go out without it: the writer
 * releases that chunk after queuing the patch, and the service, unable to read the sequence past a
 * chunk that still needs patching, would have to overwrite that chunk and the ones after it in a ring
 * streamed into a file. (A message spanning three chunks or more still has its middle chunks go out
 * before its patch exists: the service then holds them until it comes, which a ring smaller than
 * the message cannot.)
 *
 * <p>Writers offer (any thread); the commit thread takes. Patches are rare (a nested message spanning
 * chunks), so each is a small object.
 */
final class PendingPatches {
    /**
     * A patch and the released-chunk queue's producer index when it was queued: every chunk its writer
     * released before it, its own among them, has a queue position below that.
     */
    private record Queued(CommitRequest.Patch patch, long releasedBefore) {}

    private final MpscUnboundedAtomicArrayQueue<Queued> queued = new MpscUnboundedAtomicArrayQueue<>(64);
    /** Commit thread only: patches taken after a drain's chunks whose chunks that drain may not have taken. */
    private final ArrayDeque<Queued> carried = new ArrayDeque<>();

    /**
     * Writer thread, after its chunk's release returned: {@code releasedBefore} is the released-chunk
     * queue's producer index read now, on the same thread, so it counts that chunk.
     */
    void offer(CommitRequest.Patch patch, long releasedBefore) {
        queued.offer(new Queued(patch, releasedBefore));
    }

    /** Commit thread only (the carried ones are its own): whether any patch waits, queued or carried. */
    boolean isEmpty() {
        return queued.isEmpty() && carried.isEmpty();
    }

    /** Whether patches were carried over from the last drain: their chunks go out with the next one. */
    boolean anyCarried() {
        return !carried.isEmpty();
    }

    /**
     * Commit thread, before it takes chunks: every patch carried or queued so far, carried ones first.
     * Their chunks were queued before them, so the drain, which then takes every chunk queued, takes those.
     */
    void takeAllInto(CommitRequest batch) {
        while (!carried.isEmpty()) {
            batch.addPatch(carried.pollFirst().patch());
        }
        Queued patch;
        while ((patch = queued.poll()) != null) {
            batch.addPatch(patch.patch());
        }
    }

    /**
     * Commit thread, after it took chunks up to the queue position {@code taken}: the patches queued
     * meanwhile, each into the batch if every chunk released before it was taken, else carried to the
     * next drain. Without this a batch could carry a writer's chunks past one still waiting for its patch
     * (the patches taken before the chunks are only those queued before the drain began).
     */
    void takeThoseOfTakenChunksInto(CommitRequest batch, long taken) {
        Queued patch;
        while ((patch = queued.poll()) != null) {
            if (patch.releasedBefore() <= taken) {
                batch.addPatch(patch.patch());
            } else {
                carried.addLast(patch);
            }
        }
    }
}
