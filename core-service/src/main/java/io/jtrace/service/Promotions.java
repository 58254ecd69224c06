package io.jtrace.service;

import io.jtrace.service.buffer.BufferCounters;
import io.jtrace.service.buffer.Promotion;
import io.jtrace.service.buffer.PromotionTarget;
import io.jtrace.shm.abi.ChunkHeader;
import io.jtrace.shm.abi.PageHeader;
import io.jtrace.shm.abi.PageLayout;
import io.jtrace.shm.abi.SharedMemoryAbi;
import io.jtrace.shm.writer.ChunkPromoter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.concurrent.locks.LockSupport;
import java.util.function.IntPredicate;

/**
 * The {@link Promotion}s of one in-process producer's writers, by writer id, and the buffers whose
 * files they may append to ({@link PromotionTarget}s): the writers look theirs up on every chunk they
 * release ({@link #tryPromote}); the service offers and withdraws targets, grants promotions after a
 * chunk it read, and takes them back before it handles anything of a writer's sequence. The table and
 * the targets are all the two sides share; each promotion's own state says who owns it.
 *
 * <p>A writer takes a promotion itself at its chunk 0 when the service offers its buffer: publishes it
 * here (volatile store), then reads the targets again (volatile load); the service withdraws a target
 * (volatile store), then looks at every writer's entry (volatile loads). In the one order of these
 * accesses, either the service sees the promotion (and takes it back, waiting while the writer appends)
 * or the writer sees the target gone (and gives its promotion up unused): no writer appends to a file
 * after the service has taken back every promotion for it.
 */
final class Promotions implements ChunkPromoter {
    private final AtomicReferenceArray<Promotion> byWriter = new AtomicReferenceArray<>(ChunkHeader.MAX_WRITER_ID + 1);
    /** The buffers offered, copied on write by the service (volatile: writers read it without a lock). */
    private volatile PromotionTarget[] targets = new PromotionTarget[0];
    /** Takes a sequence id for a writer that opens its sequence itself (see SequenceRegistry#claimSlotId). */
    private final IntPredicate claimSlotId;

    Promotions(IntPredicate claimSlotId) {
        this.claimSlotId = claimSlotId;
    }

    /** Writer threads. */
    @Override
    public int tryPromote(int writerId, int page, int index, int targetBuffer, int payloadEnd, int sequenceId) {
        if (writerId <= 0 || writerId >= byWriter.length()) {
            return QUEUE;
        }
        Promotion promotion = byWriter.get(writerId);
        if (promotion != null) {
            return promotion.tryAppend(page, index, targetBuffer, payloadEnd, sequenceId);
        }
        PromotionTarget target = target(targetBuffer);
        if (target == null || payloadEnd < 0 || sequenceId <= 0 || !isFirstChunk(target.abi(), page, index)
                || !claimSlotId.test(sequenceId)) {
            // Not its chunk 0, or its id is taken: through the service, which then stamps an id of its own.
            return QUEUE;
        }
        Promotion opening = Promotion.opening(sequenceId, targetBuffer, target);
        if (!byWriter.compareAndSet(writerId, null, opening)) {
            // The service copied a chunk this writer holds (see block): the copy is in the file in part.
            return QUEUE;
        }
        if (target(targetBuffer) != target) {
            // Withdrawn meanwhile: the service may have looked here before the store above.
            opening.giveUp();
            return QUEUE;
        }
        return opening.appendClaimed(page, index, payloadEnd);
    }

    private PromotionTarget target(int bufferId) {
        for (PromotionTarget target : targets) {
            if (target.bufferId() == bufferId) {
                return target;
            }
        }
        return null;
    }

    private static boolean isFirstChunk(SharedMemoryAbi abi, int page, int index) {
        PageLayout layout = PageHeader.layout(abi.pageBitmap(page));
        return layout != null && layout != PageLayout.NOT_PARTITIONED
                && abi.readChunkId(abi.chunkOffset(page, layout, index)) == 0;
    }

    /** Service thread: writers of {@code target}'s buffer may append their chunks to its file from their chunk 0. */
    void offer(PromotionTarget target) {
        if (target(target.bufferId()) == null) {
            PromotionTarget[] now = Arrays.copyOf(targets, targets.length + 1);
            now[now.length - 1] = target;
            targets = now;
        }
    }

    /** Service thread: no writer takes a new promotion for these buffers (those it has stay until taken back). */
    void withdraw(Collection<Integer> bufferIds) {
        List<PromotionTarget> kept = new ArrayList<>();
        for (PromotionTarget target : targets) {
            if (!bufferIds.contains(target.bufferId())) {
                kept.add(target);
            }
        }
        targets = kept.toArray(new PromotionTarget[0]);
    }

    /** Service thread: the offer of a buffer, or null. */
    PromotionTarget offered(int bufferId) {
        return target(bufferId);
    }

    /** Service thread: {@code writerId} may append its own chunks from now on (it has no promotion). */
    void grant(int writerId, Promotion promotion) {
        byWriter.set(writerId, promotion);
    }

    /**
     * Service thread, about to take chunk {@code chunkId} of {@code writerId}: the writer's promotion,
     * held for the time the service takes the chunk (the writer queued it because its turn had not come,
     * and waits for it), its appended chunks settled; or null, having taken back a promotion that was
     * revoked or expects another chunk. Hand a held promotion back with {@link #handBack}.
     */
    Promotion holdFor(int writerId, int chunkId, Settlement settlement) {
        Promotion promotion = byWriter.get(writerId);
        if (promotion == null) {
            return null;
        }
        if (promotion.hold(chunkId)) {
            settlement.settle(promotion, writerId);
            return promotion;
        }
        reclaim(writerId, true, settlement);
        return null;
    }

    /**
     * Service thread, done with chunk {@code chunkId} of a writer whose promotion it held: the writer may
     * append from the next chunk on ({@code inFile}: the chunk is in the file with nothing of its
     * sequence left in the buffer), or the promotion is revoked and dropped.
     */
    void handBack(int writerId, Promotion promotion, boolean inFile, int chunkId) {
        if (inFile) {
            promotion.handBack(chunkId + 1);
        } else {
            // Settled when held, and nothing appended since: nothing left to settle.
            promotion.revokeHeld();
            byWriter.set(writerId, null);
        }
    }

    /**
     * Service thread, about to copy a chunk {@code writerId} holds: from now on the writer cannot open its
     * sequence in the file (it would append the whole chunk of which the copy puts part there), until
     * the service has taken its next chunk. Both sides CAS the writer's empty entry, so one wins. Returns
     * false when the writer has a promotion (it then appends its chunks itself: leave the chunk alone).
     */
    boolean block(int writerId) {
        Promotion now = byWriter.get(writerId);
        return now != null ? now.targetBuffer() < 0 : byWriter.compareAndSet(writerId, null, Promotion.blocked())
                || byWriter.get(writerId).targetBuffer() < 0;
    }

    /** {@link #block}, taking back a promotion the writer has first (waiting while it appends). */
    void takeBackAndBlock(int writerId, Settlement settlement) {
        while (!block(writerId)) {
            reclaim(writerId, true, settlement);
        }
    }

    /** What the service does with a promotion it took back. */
    @FunctionalInterface
    interface Settlement {
        void settle(Promotion promotion, int writerId);
    }

    /**
     * Service thread, before it handles anything of {@code writerId}'s sequence: takes its promotion back,
     * if it has one, and settles it. A writer appending a chunk right now is waited for (microseconds,
     * unless it lost its CPU), or, unless {@code wait}, left as it is: then false.
     */
    boolean reclaim(int writerId, boolean wait, Settlement settlement) {
        Promotion promotion = byWriter.get(writerId);
        if (promotion == null) {
            return true;
        }
        for (int attempt = 0; !promotion.revoke(); attempt++) {
            if (!wait) {
                return false;
            }
            backOff(attempt);
        }
        byWriter.set(writerId, null);
        settlement.settle(promotion, writerId);
        return true;
    }

    /** A flush of the buffers {@code bufferIds} begins: see {@link Promotion#flushBegins}. */
    void flushBegins(Collection<Integer> bufferIds) {
        for (int writerId = 1; writerId < byWriter.length(); writerId++) {
            Promotion promotion = byWriter.get(writerId);
            if (promotion != null && bufferIds.contains(promotion.targetBuffer())) {
                promotion.flushBegins();
            }
        }
    }

    /**
     * {@link #reclaim} for every writer of the buffers {@code bufferIds}. {@code flushing}: a writer that
     * appended a chunk since the flush began keeps its promotion (everything it wrote before the flush
     * is in the file), as does one appending now; every other gives it back, so the flush can copy the
     * chunk it holds: a thread that appended chunks and then went quiet has its last events there. (An
     * earlier rule kept every writer that had appended since the flush before, and missed those events
     * until the next flush; taking every promotion back instead made a busy writer's chunks go through
     * the service after each flush, 30-75 % more per slice at a flush every 200 ms.) Returns the writers
     * that kept theirs.
     */
    BitSet reclaimAll(Collection<Integer> bufferIds, boolean flushing, Settlement settlement) {
        BitSet kept = new BitSet();
        for (int writerId = 1; writerId < byWriter.length(); writerId++) {
            Promotion promotion = byWriter.get(writerId);
            if (promotion == null || !bufferIds.contains(promotion.targetBuffer())) {
                continue;
            }
            if (flushing && !promotion.revoked() && promotion.appendedSinceFlushBegan()
                    || !reclaim(writerId, !flushing, settlement)) {
                kept.set(writerId);
            }
        }
        return kept;
    }

    /**
     * Service thread, for a live view of buffer {@code bufferId}'s statistics: adds what its writers
     * appended and no settlement has counted yet (see {@link Promotion#addUnsettledTo}).
     */
    void addUnsettled(int bufferId, BufferCounters live) {
        for (int writerId = 1; writerId < byWriter.length(); writerId++) {
            Promotion promotion = byWriter.get(writerId);
            if (promotion != null && promotion.targetBuffer() == bufferId) {
                promotion.addUnsettledTo(live);
            }
        }
    }

    /** Every writer's, waiting for those appending (the producer goes). */
    void reclaimEverything(Settlement settlement) {
        targets = new PromotionTarget[0];
        for (int writerId = 1; writerId < byWriter.length(); writerId++) {
            reclaim(writerId, true, settlement);
        }
    }

    private static void backOff(int attempt) {
        if (attempt < 64) {
            Thread.onSpinWait();
        } else if (attempt < 128) {
            Thread.yield();
        } else {
            LockSupport.parkNanos(20_000);
        }
    }
}
