package io.jtrace.service.buffer;

import static io.jtrace.service.buffer.BufferTesting.BIG;
import static io.jtrace.service.buffer.BufferTesting.IDENTITY;
import static io.jtrace.service.buffer.BufferTesting.PRODUCER;
import static io.jtrace.service.buffer.BufferTesting.chunkOf;
import static io.jtrace.service.buffer.BufferTesting.commit;
import static io.jtrace.service.buffer.BufferTesting.names;
import static io.jtrace.service.buffer.ChunkPayload.chunk;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.jtrace.protos.TracePacket;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** {@link TraceBuffer#copy}: what a dump of a running session reads, leaving the buffer as it was. */
class TraceBufferCopyTest {
    @Test
    void theCopyReadsWhatTheBufferHoldsAndTheBufferStillReadsAllOfIt() {
        TraceBuffer buffer = new TraceBuffer(BIG, TraceBuffer.Policy.RING);
        commit(buffer, 1, 0, chunkOf("a0", "a1"));
        commit(buffer, 2, 0, chunkOf("b0"));
        // A packet continued in a chunk not committed yet: the copy (read as ended) reports it lost, the
        // buffer glues it once the rest arrives.
        byte[] a3 = BufferTesting.pkt("a3").toByteArray();
        commit(buffer, 1, 1, chunk().packet(BufferTesting.pkt("a2")).frame(Arrays.copyOfRange(a3, 0, 3))
                .lastContinuesOnNext());
        buffer.retireWriter(IDENTITY, PRODUCER, 2);

        TraceBuffer copy = buffer.copy(IDENTITY);
        assertEquals(Set.of(PRODUCER), copy.producerIds());
        commit(buffer, 1, 2, chunk().firstContinuesFromPrev().frame(Arrays.copyOfRange(a3, 3, a3.length))
                .packet(BufferTesting.pkt("a4")));
        List<TracePacket> copied = BufferTesting.read(copy, true).packets();
        assertEquals(List.of("b0", "a0", "a1", "a2"), names(copied));
        assertEquals(List.of("b0"), names(BufferTesting.onSequence(copied, PRODUCER, 2)),
                "a retired writer keeps its sequence in the copy");

        assertEquals(List.of("b0", "a0", "a1", "a2", "a3", "a4"), names(BufferTesting.read(buffer, true).packets()),
                "reading the copy took nothing from the buffer");
    }
}
