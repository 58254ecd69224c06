package io.jtrace.service.buffer;

import io.jtrace.shm.proto.WireFormat;
import java.nio.ByteBuffer;
import java.util.concurrent.locks.LockSupport;

/**
 * The bytes of one chunk a {@link Promotion} appends, as the service would have appended them: an
 * optional leading drop marker left out (the writer lost packets before the chunk; see
 * {@link #markers}), the first packet reframed with the trusted identity in place of its sequence id
 * slot, the rest of the whole packets as the writer framed them. {@link #read} parses the chunk in the
 * SMB, {@link #frame} frames its first packet; the copies go into the file's ring ({@link #copyInto})
 * or, when that is full, past it ({@link #appendToAFullRing}). The promotion's owner's only (see
 * {@link Promotion}).
 */
final class PromotedChunk {
    private static final int SLOT = WireFormat.SEQUENCE_ID_SLOT_BYTES;
    /** Longest a writer waits for room in a pipe's ring before its chunk goes through the service. */
    private static final long FULL_WAIT_NANOS = 10_000_000;
    /** One sleep of that wait. */
    private static final long WAIT_STEP_NANOS = 50_000;
    /** A drop marker's frame: the packet tag and a 4-byte size that says "dropped", no body. */
    private static final int MARKER_BYTES = 1 + WireFormat.RESERVED_SIZE_BYTES;

    /** A frame header read out of the SMB (the tag and up to 4 size bytes, as long as a marker), or a slot. */
    private final byte[] head = new byte[MARKER_BYTES];
    /** The first packet's new frame header: tag and size varint. */
    private final byte[] frame = new byte[1 + 5];
    private int frameHeader;
    /** The SMB and the chunk's payload offset in it, as {@link #read} found them. */
    private ByteBuffer smb;
    private int payload;
    /** The first packet's trailer, as {@link #frame} was given it. */
    private byte[] identity;
    private int identityLength;
    /** Payload offsets of the first packet's body (slot excluded) and of the packets after it. */
    private int bodyStart;
    private int bodyLength;
    private int restStart;
    private int restLength;
    private int markers;
    /** The first packet's body, copied out to read its flags after a loss (grown as needed). */
    private byte[] firstBody = new byte[0];
    /**
     * The chunk assembled for one write past the file's ring: allocated the first time this writer finds
     * the ring full, and grown to the largest chunk it writes so.
     */
    private byte[] assembled;

    /**
     * Parses the chunk's whole packets, {@code [0, payloadEnd)} of the payload at {@code payload}: false
     * if they are not what a trusted writer frames (a first packet without its slot, a size out of
     * bounds), so the chunk must go through the service, which counts what is wrong with it.
     */
    boolean read(ByteBuffer smb, int payload, int payloadEnd) {
        this.smb = smb;
        this.payload = payload;
        if (payloadEnd < head.length) {
            return false;
        }
        int start = 0;
        markers = 0;
        smb.get(payload, head, 0, head.length);
        if (head[0] == WireFormat.TRACE_PACKET_TAG
                && WireFormat.redundantVarintAt(head, 1) == WireFormat.DROPPED_PACKET_SIZE) {
            markers = 1;
            start = MARKER_BYTES;
            bodyLength = 0;
            restLength = 0;
            if (start == payloadEnd) {
                return true;
            }
            if (payloadEnd - start < head.length) {
                return false;
            }
            smb.get(payload + start, head, 0, head.length);
        }
        if (head[0] != WireFormat.TRACE_PACKET_TAG) {
            return false;
        }
        int size = head[1];
        int sizeBytes = 1;
        if (size < 0) {
            size = WireFormat.redundantVarintAt(head, 1);
            sizeBytes = WireFormat.RESERVED_SIZE_BYTES;
        }
        bodyStart = start + 1 + sizeBytes;
        if (size <= SLOT || size > payloadEnd - bodyStart) {
            return false;
        }
        restStart = bodyStart + size;
        smb.get(payload + restStart - SLOT, head, 0, SLOT);
        if (!WireFormat.isSequenceIdSlot(head, 0)) {
            return false;
        }
        bodyLength = size - SLOT;
        restLength = payloadEnd - restStart;
        return true;
    }

    /** Drop markers the chunk led with (0 or 1): the writer's own count of a loss, for the service's counters. */
    int markers() {
        return markers;
    }

    /**
     * Whether the chunk's first packet clears its sequence's incremental state: after a loss, what the
     * service requires before it passes on packets that need that state (see ChunkPacketReader), and
     * what a writer's restart after its drops writes first.
     */
    boolean firstPacketClearsIncrementalState() {
        if (firstBody.length < bodyLength) {
            firstBody = new byte[bodyLength];
        }
        smb.get(payload + bodyStart, firstBody, 0, bodyLength);
        return (SequenceFlags.of(firstBody, 0, bodyLength) & SequenceFlags.INCREMENTAL_STATE_CLEARED) != 0;
    }

    /** Whether the chunk holds a packet besides its marker: false, nothing goes into the file. */
    boolean hasPackets() {
        return bodyLength > 0;
    }

    /**
     * Frames the first packet with {@code identity}, {@code identityLength} bytes, in place of its slot:
     * returns the chunk's length in the file.
     */
    int frame(byte[] identity, int identityLength) {
        this.identity = identity;
        this.identityLength = identityLength;
        frame[0] = (byte) WireFormat.TRACE_PACKET_TAG;
        frameHeader = Varints.put(frame, 1, bodyLength + identityLength);
        return frameHeader + bodyLength + identityLength + restLength;
    }

    /** Copies the chunk into its reservation in the file's ring. */
    void copyInto(FileAppender file, long reservation) {
        file.put(reservation, 0, frame, 0, frameHeader);
        file.put(reservation, frameHeader, smb, payload + bodyStart, bodyLength);
        file.put(reservation, frameHeader + bodyLength, identity, 0, identityLength);
        file.put(reservation, frameHeader + bodyLength + identityLength, smb, payload + restStart, restLength);
    }

    /**
     * The file's ring was full: this thread writes it out itself and tries again (the file thread was
     * behind); if it is still full, the chunk ({@code length} bytes, {@code packets} packets) goes into
     * the file past the ring (a pipe, which cannot take that, waits a little for room). Returns whether
     * the chunk is in the file.
     */
    boolean appendToAFullRing(FileAppender file, int length, int packets, int chunkSize) {
        long reservation = file.makeRoom() ? file.tryReserve(length) : FileAppender.FULL;
        long direct = reservation == FileAppender.FULL ? file.reserveDirect(length) : -1;
        if (direct >= 0) {
            // Still full (a range in it still being copied by a thread that lost its CPU, or written out
            // by one): the chunk goes past it, written here, at its own position.
            try {
                writePastTheRing(file, direct, length, chunkSize);
            } finally {
                file.endDirect(direct, packets);
            }
            return true;
        }
        if (reservation == FileAppender.FULL) {
            reservation = reserve(file, length);
        }
        if (reservation < 0) {
            return false;
        }
        copyInto(file, reservation);
        file.commit(reservation, length, packets);
        return true;
    }

    /**
     * Writes the chunk, {@code length} bytes, into the file past its ring, at the position of
     * {@code direct}, in one write: it is assembled first (a copy of a few KiB costs far less than the
     * three system calls it saves).
     */
    private void writePastTheRing(FileAppender file, long direct, int length, int chunkSize) {
        if (assembled == null || assembled.length < length) {
            assembled = new byte[Math.max(length, chunkSize + identityLength + frame.length)];
        }
        System.arraycopy(frame, 0, assembled, 0, frameHeader);
        smb.get(payload + bodyStart, assembled, frameHeader, bodyLength);
        System.arraycopy(identity, 0, assembled, frameHeader + bodyLength, identityLength);
        smb.get(payload + restStart, assembled, frameHeader + bodyLength + identityLength, restLength);
        file.writeDirect(direct, assembled, length);
    }

    /**
     * The ring's space for a chunk, once it was found full, in a file that cannot be written past it (a
     * pipe). The file thread is behind (busy threads, few cores: it waits for a CPU like any of them):
     * this thread sleeps briefly, for at most {@link #FULL_WAIT_NANOS}, instead of losing the promotion
     * (every later chunk would then wait for the service's turn on a CPU).
     */
    private static long reserve(FileAppender file, int length) {
        long reservation = file.tryReserve(length);
        long deadline = 0;
        while (reservation == FileAppender.FULL) {
            long now = System.nanoTime();
            if (deadline == 0) {
                deadline = now + FULL_WAIT_NANOS;
            } else if (now - deadline > 0) {
                break;
            }
            if (!file.makeRoom()) {
                // Someone else is writing it out: leave the CPU to them (a yield would not, among many threads).
                LockSupport.parkNanos(WAIT_STEP_NANOS);
            }
            reservation = file.tryReserve(length);
        }
        return reservation;
    }
}
