package io.jtrace.jcstress;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import io.jtrace.shm.abi.ChunkHeader;
import io.jtrace.shm.abi.ChunkSnapshot;
import io.jtrace.shm.abi.InProcessSmb;
import io.jtrace.shm.abi.SharedMemoryAbi;
import io.jtrace.shm.writer.ChunkArbiter;
import io.jtrace.shm.writer.TraceWriter;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.II_Result;

/**
 * Protocol (1), packet and chunk publication. A real {@link TraceWriter} writes two packets into a
 * fresh SMB and releases its chunk, while the service reads the chunk both ways it does: scraping it
 * ({@link ChunkSnapshot#take}) and, once COMPLETE, taking it (CAS COMPLETE → BEING_READ) and reading it
 * in place as {@code ChunkMover} does.
 *
 * <p>Orderings proven: the writer's plain stores of a packet's bytes and size field happen-before its
 * release store of the packet count ({@code SharedMemoryAbi.publishPackets}), which the scrape reads
 * with acquire, so every counted packet is whole; the chunk id store precedes the header's release
 * store; and the writer's last header store and all its bytes happen-before its CAS BEING_WRITTEN →
 * COMPLETE, which the service's CAS COMPLETE → BEING_READ reads, so a COMPLETE chunk is never seen with
 * fewer packets, another header or torn bytes.
 *
 * <p>r1: packets the scrape took, all whole (0 when there was nothing to take); -1 for a torn copy or
 * a counted packet that is not whole. r2: 1 when the chunk was COMPLETE and read whole with its final
 * header, 0 when it was not COMPLETE yet, -1 when it was COMPLETE but read wrong.
 */
@JCStressTest
@Outcome(id = {"0, 0", "1, 0", "2, 0"}, expect = ACCEPTABLE, desc = "Scraped up to the last published packet; the chunk was not COMPLETE yet.")
@Outcome(id = {"0, 1", "1, 1", "2, 1"}, expect = ACCEPTABLE, desc = "Then the chunk was COMPLETE and read whole.")
@Outcome(expect = FORBIDDEN, desc = "A counted packet not whole, a torn copy, or a COMPLETE chunk read wrong.")
@State
public class PacketPublicationTest {
    private static final int PACKETS = 2;
    private static final ThreadLocal<ChunkSnapshot> SNAPSHOT = ThreadLocal.withInitial(ChunkSnapshot::new);

    private final SharedMemoryAbi abi = InProcessSmb.abi(1);
    private final TraceWriter writer = new TraceWriter(InProcessSmb.arbiter(abi), 0);

    @Actor
    public void writer() {
        for (int i = 0; i < PACKETS; i++) {
            Packets.write(writer, 0, i);
        }
        writer.flush();
    }

    @Actor
    public void service(II_Result r) {
        ChunkSnapshot snapshot = SNAPSHOT.get();
        switch (snapshot.take(abi, 0, 0)) {
            case NOTHING:
                r.r1 = 0;
                break;
            case TAKEN:
                int count = ChunkHeader.packetCount(snapshot.packetsWord());
                boolean whole = snapshot.writerId() == writer.writerId() && snapshot.chunkId() == 0
                        && (!snapshot.complete() || count == PACKETS)
                        && Packets.intact(snapshot.payload(), 0, 0, count);
                r.r1 = whole ? count : -1;
                break;
            default:
                r.r1 = -1;
        }
        if (abi.tryAcquireChunkForReading(0, 0)) {
            int offset = abi.chunkOffset(0, ChunkArbiter.defaultLayout(abi.pageSize()), 0);
            int word = abi.readWriterAndPackets(offset);
            boolean whole = ChunkHeader.writerId(word) == writer.writerId()
                    && ChunkHeader.packetsWordOf(word) == ChunkHeader.packetsWord(PACKETS, ChunkHeader.FLAG_FILE_FRAMED)
                    && abi.readChunkId(offset) == 0
                    && Packets.intact(abi.smb().buffer(), offset + ChunkHeader.SIZE, 0, PACKETS);
            r.r2 = whole ? 1 : -1;
        } else {
            r.r2 = 0;
        }
    }
}
