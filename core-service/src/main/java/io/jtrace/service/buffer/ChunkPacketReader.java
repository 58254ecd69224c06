package io.jtrace.service.buffer;

import io.jtrace.shm.abi.ChunkHeader;
import io.jtrace.shm.proto.WireFormat;

/**
 * The read-out half of a {@link TraceBuffer}: turns a stored chunk back into packets for a sink, with
 * the service's trusted fields appended to each, and keeps the buffer's loss counters for what cannot be
 * delivered (drop markers, broken chunks, invalid packets). Service thread only. Each packet reaches the
 * sink as two parts, its bytes where they lie in the ring and a trailer of trusted fields built once
 * per chunk, so the read-out copies nothing itself.
 *
 * <p>A {@link ChunkHeader#FLAG_FILE_FRAMED file-framed} chunk holds its packets the way a trace file
 * does: each frame opens with the Trace.packet tag, and each packet ends with a trusted_packet_sequence_id
 * slot. Of a trusted producer's chunk, the reader stamps the sequence id into each slot and hands whole
 * runs of packets to the sink in one piece ({@link PacketSink#framedPackets}): a file copies them with
 * no work per packet. Every other packet loses its slot and gets the trailer, as in a Perfetto chunk.
 */
final class ChunkPacketReader {
    private static final int TRUSTED_UID_FIELD = 3;
    private static final int TRUSTED_SEQUENCE_ID_FIELD = 10;
    private static final int PREVIOUS_PACKET_DROPPED_FIELD = 42;
    private static final int TRUSTED_PID_FIELD = 79;
    private static final int FIRST_PACKET_ON_SEQUENCE_FIELD = 87;
    /** Largest trailer: five fields, each a tag of at most 2 bytes and a varint of at most 10. */
    static final int TRAILER_MAX = 64;

    private final BufferCounters counters;
    /**
     * The trailer of the sequence being read: trusted_packet_sequence_id in its first
     * {@link #sequenceOnly} bytes, then trusted_uid and trusted_pid up to {@link #withIdentity}. Built
     * once per chunk; most packets take its first part as it is.
     */
    private final byte[] trailer = new byte[TRAILER_MAX];
    private int sequenceOnly;
    private int withIdentity;
    /** For the rare packet that also reports a loss or opens its sequence: the identity plus those flags. */
    private final byte[] flaggedTrailer = new byte[TRAILER_MAX];
    /** Packets the last {@link #deliverFramedRun} delivered. */
    private int runPackets;
    /**
     * The chunk being read says every packet in it needs the sequence's incremental state unless it
     * clears it or is read first ({@link ChunkHeader#FLAG_NEEDS_INCREMENTAL_STATE}).
     */
    private boolean chunkNeedsState;
    /** The second and third byte of a slot stamped with the sequence being read. */
    private byte slotLow;
    private byte slotHigh;

    ChunkPacketReader(BufferCounters counters) {
        this.counters = counters;
    }

    /**
     * Delivers the packets of {@code chunk} (stored in {@code data}, the buffer's ring) to {@code sink}: frames walked,
     * fragments glued across consecutive chunks through {@code seq}, drop markers and broken chunks
     * turned into loss on the sequence. Returns the number of packets delivered. The packets of a
     * {@code trusted} producer (see {@link SequenceIdentity#trusted}) are framed without being validated.
     */
    long read(byte[] data, ChunkRecord chunk, SequenceState seq, int sequenceId, int pid, int uid, boolean trusted,
              PacketSink sink) {
        // From where an earlier read of the chunk, while its writer held it, stopped (0 for a new chunk).
        int pos = chunk.offset + chunk.readPos;
        int end = chunk.offset + chunk.size;
        long delivered = 0;
        sequenceOnly = Varints.putField(trailer, 0, TRUSTED_SEQUENCE_ID_FIELD, sequenceId);
        withIdentity = identityTrailer(trailer, sequenceId, uid, pid);
        boolean fileFramed = (chunk.flags & ChunkHeader.FLAG_FILE_FRAMED) != 0;
        chunkNeedsState = (chunk.flags & ChunkHeader.FLAG_NEEDS_INCREMENTAL_STATE) != 0;
        int slotBytes = fileFramed ? WireFormat.SEQUENCE_ID_SLOT_BYTES : 0;
        boolean stampSlots = fileFramed && sequenceId <= WireFormat.MAX_SLOT_SEQUENCE_ID;
        int slot = WireFormat.sequenceIdSlot(sequenceId);
        slotLow = (byte) (slot >>> 8);
        slotHigh = (byte) (slot >>> 16);
        // Packets that are neither fragments nor special: all but a last one that continues on the next chunk.
        int plainLimit = chunk.packetCount - ((chunk.flags & ChunkHeader.FLAG_LAST_PACKET_CONTINUES_ON_NEXT) != 0 ? 1 : 0);
        for (int i = chunk.readPackets; i < chunk.packetCount; i++) {
            if (stampSlots && trusted && delivered > 0 && !seq.lossPending && !seq.awaitingIncrementalState
                    && i < plainLimit) {
                // Past the chunk's first packet (which carries the identity) and with no loss to report, a
                // trusted producer's packets need nothing but their sequence id. Its writer wrote it and
                // said where they end: hand them over as they are. Otherwise stamp them and hand them over
                // as one run, up to the first that needs a look (a drop marker, an empty or a broken frame,
                // a fragment).
                int runEnd = chunk.stampedSequenceId == sequenceId && chunk.payloadEnd >= 0
                        ? chunk.offset + chunk.payloadEnd : -1;
                if (runEnd > pos && runEnd <= end) {
                    runPackets = plainLimit - i;
                    sink.framedPackets(data, pos, runEnd - pos, runPackets);
                    counters.chunksReadOnHints++;
                    pos = runEnd;
                } else {
                    pos = deliverFramedRun(data, pos, end, plainLimit - i, sink);
                }
                delivered += runPackets;
                i += runPackets;
                if (i == chunk.packetCount) {
                    break;
                }
            }
            if (fileFramed) {
                if (pos >= end || data[pos] != WireFormat.TRACE_PACKET_TAG) {
                    return abortChunk(chunk, seq, delivered);
                }
                pos++;
            }
            int size = end - pos >= WireFormat.RESERVED_SIZE_BYTES
                    ? WireFormat.redundantVarintAt(data, pos) : -1;
            if (size >= 0) {
                pos += WireFormat.RESERVED_SIZE_BYTES;
            } else {
                // Not the 4-byte form our writers use: any varint is a valid size header.
                long sizeAndLength = Varints.read(data, pos, end);
                if (sizeAndLength < 0) {
                    return abortChunk(chunk, seq, delivered);
                }
                pos += (int) (sizeAndLength >>> 32);
                size = (int) sizeAndLength;
            }
            if (size == WireFormat.DROPPED_PACKET_SIZE) {
                // The writer lost packets here (SMB full or an aborted packet).
                counters.writerPacketLoss++;
                seq.lossPending = true;
                seq.pendingFragment = null;
                continue;
            }
            if (size > end - pos) {
                return abortChunk(chunk, seq, delivered);
            }
            int start = pos;
            pos += size;
            boolean first = i == 0;
            boolean last = i == chunk.packetCount - 1;
            boolean continuesFromPrev = first && (chunk.flags & ChunkHeader.FLAG_FIRST_PACKET_CONTINUES_FROM_PREV) != 0;
            boolean continuesOnNext = last && (chunk.flags & ChunkHeader.FLAG_LAST_PACKET_CONTINUES_ON_NEXT) != 0;
            if (continuesOnNext && SequenceReadOut.needsPatching(chunk)) {
                // Its patches never came: the packet's size fields are wrong. Drop it, report the loss.
                seq.pendingFragment = null;
                seq.lossPending = true;
                continue;
            }
            if (continuesFromPrev) {
                if (seq.pendingFragment == null) {
                    // Its beginning was lost (overwritten or never committed).
                    seq.lossPending = true;
                    continue;
                }
                byte[] glued = concat(seq.pendingFragment, data, start, size);
                seq.pendingFragment = null;
                if (continuesOnNext) {
                    seq.pendingFragment = glued;
                    continue;
                }
                delivered += emit(glued, 0, glued.length, slotBytes, seq, delivered == 0, trusted, sink);
                continue;
            }
            if (first && seq.pendingFragment != null) {
                // The previous chunk promised a continuation this chunk does not carry.
                seq.pendingFragment = null;
                seq.lossPending = true;
            }
            if (continuesOnNext) {
                seq.pendingFragment = concat(new byte[0], data, start, size);
                continue;
            }
            delivered += emit(data, start, size, slotBytes, seq, delivered == 0, trusted, sink);
        }
        chunk.readPos = pos - chunk.offset;
        chunk.readPackets = chunk.packetCount;
        return delivered;
    }

    /**
     * Of a file-framed chunk: stamps the sequence id into the slot of up to {@code maxPackets} frames
     * from {@code pos}, while each is a whole packet ending in a slot inside the chunk, and hands them
     * to the sink as one run. Returns the position after the last one and leaves their number in
     * {@link #runPackets}. Stamping writes the service's copy of the chunk (the ring), never the SMB.
     */
    private int deliverFramedRun(byte[] data, int pos, int end, int maxPackets, PacketSink sink) {
        int start = pos;
        int count = 0;
        while (count < maxPackets && end - pos >= 2 && data[pos] == WireFormat.TRACE_PACKET_TAG) {
            int size = data[pos + 1];
            int header = 2;
            if (size < 0) {
                // Not a 1-byte size: the 4-byte form, or a frame the general path must look at.
                if (end - pos < 1 + WireFormat.RESERVED_SIZE_BYTES) {
                    break;
                }
                size = WireFormat.redundantVarintAt(data, pos + 1);
                header = 1 + WireFormat.RESERVED_SIZE_BYTES;
            }
            // A drop marker's size is larger than any chunk, so the bound check stops at it too.
            if (size <= WireFormat.SEQUENCE_ID_SLOT_BYTES || size > end - pos - header) {
                break;
            }
            int slot = pos + header + size - WireFormat.SEQUENCE_ID_SLOT_BYTES;
            if (!WireFormat.isSequenceIdSlot(data, slot)) {
                break;
            }
            data[slot + 1] = slotLow;
            data[slot + 2] = slotHigh;
            pos = slot + WireFormat.SEQUENCE_ID_SLOT_BYTES;
            count++;
        }
        if (count > 0) {
            sink.framedPackets(data, start, pos - start, count);
        }
        runPackets = count;
        return pos;
    }

    /**
     * Writes the trailer of a chunk's first packet into {@code into}: trusted_packet_sequence_id, then
     * trusted_uid and trusted_pid. Returns its length.
     */
    static int identityTrailer(byte[] into, int sequenceId, int uid, int pid) {
        int pos = Varints.putField(into, 0, TRUSTED_SEQUENCE_ID_FIELD, sequenceId);
        return Varints.putField(into, Varints.putField(into, pos, TRUSTED_UID_FIELD, uid), TRUSTED_PID_FIELD, pid);
    }

    /**
     * Writes into {@code into} the identity trailer {@code identity[0, identityLength)} followed by
     * previous_packet_dropped ({@code dropped}) and first_packet_on_sequence ({@code first}); returns
     * its length. For the rare packet after a loss or opening its sequence: here and in a promotion.
     */
    static int flaggedTrailer(byte[] into, byte[] identity, int identityLength, boolean dropped, boolean first) {
        System.arraycopy(identity, 0, into, 0, identityLength);
        int pos = identityLength;
        if (dropped) {
            pos = Varints.putField(into, pos, PREVIOUS_PACKET_DROPPED_FIELD, 1);
        }
        if (first) {
            pos = Varints.putField(into, pos, FIRST_PACKET_ON_SEQUENCE_FIELD, 1);
        }
        return pos;
    }

    /** A broken frame: the rest of the chunk is lost, and a copy that replaces it is not read again. */
    private long abortChunk(ChunkRecord chunk, SequenceState seq, long delivered) {
        chunk.readPos = chunk.size;
        chunk.readPackets = chunk.packetCount;
        counters.abiViolations++;
        seq.lossPending = true;
        seq.pendingFragment = null;
        return delivered;
    }

    /**
     * Hands one packet to the sink with the service's trusted fields appended. trusted_packet_sequence_id
     * goes on every packet; trusted_uid and trusted_pid (the same for every packet of a sequence) go on
     * the first packet delivered from each chunk and on every packet that describes a track, the only
     * packets trace_processor reads them from: every packet still has its producer's identity on a packet
     * of its sequence at most a chunk before it, at 6 bytes per chunk instead of 6 bytes per packet.
     *
     * <p>A trusted producer's packet is not walked at all: that walk was half of the read-out's time per
     * packet. Its track descriptors get the identity only when they come first in a chunk, which
     * trace_processor does not need from it: every descriptor the agent writes names its process (a
     * process or thread descriptor's pid) or its parent track.
     */
    private int emit(byte[] data, int start, int size, int slotBytes, SequenceState seq, boolean firstOfChunk,
                     boolean trusted, PacketSink sink) {
        if (slotBytes > 0) {
            // The packet of a file-framed chunk ends with its slot; the trailer below replaces it.
            if (size < slotBytes || !WireFormat.isSequenceIdSlot(data, start + size - slotBytes)) {
                counters.invalidPackets++;
                seq.lossPending = true;
                return 0;
            }
            size -= slotBytes;
        }
        if (size == 0) {
            return 0;
        }
        PacketValidator.Verdict verdict = trusted ? PacketValidator.Verdict.OK : PacketValidator.check(data, start, size);
        if (!verdict.valid()) {
            counters.invalidPackets++;
            if (verdict == PacketValidator.Verdict.SETS_TRUSTED_FIELD) {
                counters.trustedFieldViolations++;
            }
            seq.lossPending = true;
            return 0;
        }
        if (seq.lossPending) {
            seq.awaitingIncrementalState = true;
        }
        if (seq.awaitingIncrementalState && !hasIncrementalState(data, start, size, seq)) {
            return 0;
        }
        // The trailer follows the producer's bytes: for a non-repeated field the last occurrence wins, so
        // these trusted values override anything the producer wrote.
        if (seq.lossPending || !seq.firstPacketEmitted) {
            sink.packet(data, start, size, flaggedTrailer, flaggedTrailer(seq));
        } else if (firstOfChunk || verdict == PacketValidator.Verdict.DESCRIBES_TRACK) {
            sink.packet(data, start, size, trailer, withIdentity);
        } else {
            sink.packet(data, start, size, trailer, sequenceOnly);
        }
        return 1;
    }

    /**
     * Of a packet on a sequence that has not cleared its incremental state since it began or since it
     * lost data: whether trace_processor could decode it. A packet that clears the state ends the wait;
     * one that needs the state is counted and left out, and a loss stays pending for the next packet that
     * goes out (trace_processor would skip it with packet_skipped_seq_needs_incremental_state_invalid,
     * so a file holding it would only carry bytes nobody can read). A packet needs the state when it
     * says so, and, in a chunk flagged {@link ChunkHeader#FLAG_NEEDS_INCREMENTAL_STATE}, unless it is
     * one trace_processor reads first or a track description that uses no state (other sequences' events
     * may name that track): such a chunk's small events leave the flag out, and
     * trace_processor, which would take them for packets that need nothing, must never get one here.
     * Other packets go out as they are. A jtrace sequence opens with a clear, so only its first packet
     * is walked for this.
     */
    private boolean hasIncrementalState(byte[] data, int start, int size, SequenceState seq) {
        int flags = SequenceFlags.of(data, start, size);
        if ((flags & SequenceFlags.INCREMENTAL_STATE_CLEARED) != 0) {
            seq.awaitingIncrementalState = false;
            return true;
        }
        if ((flags & SequenceFlags.NEEDS_INCREMENTAL_STATE) != 0
                || chunkNeedsState && (flags & SequenceFlags.USABLE_WITHOUT_STATE) == 0) {
            counters.packetsWithoutIncrementalState++;
            seq.lossPending = true;
            return false;
        }
        return true;
    }

    /** Fills {@link #flaggedTrailer} for a packet after a loss or opening its sequence, and clears those states. */
    private int flaggedTrailer(SequenceState seq) {
        int length = flaggedTrailer(flaggedTrailer, trailer, withIdentity, seq.lossPending, !seq.firstPacketEmitted);
        seq.lossPending = false;
        seq.firstPacketEmitted = true;
        return length;
    }

    private static byte[] concat(byte[] head, byte[] data, int start, int size) {
        byte[] result = new byte[head.length + size];
        System.arraycopy(head, 0, result, 0, head.length);
        System.arraycopy(data, start, result, head.length, size);
        return result;
    }
}
