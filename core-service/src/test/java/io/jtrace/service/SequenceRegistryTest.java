package io.jtrace.service;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jtrace.shm.proto.WireFormat;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

class SequenceRegistryTest {
    private static final int P = 3;

    @Test
    void aTrustedWritersProposalBecomesItsSequenceId() {
        SequenceRegistry r = new SequenceRegistry();
        r.propose(P, 1, 16_000);
        assertEquals(16_000, r.sequenceId(P, 1));
    }

    @Test
    void aProposalNeverGivesAnIdASecondTimeNorReplacesAnIdGiven() {
        SequenceRegistry r = new SequenceRegistry();
        int given = r.sequenceId(P, 1);
        r.propose(P, 2, given);
        assertNotEquals(given, r.sequenceId(P, 2), "an id the service gave is not adopted");
        r.propose(P, 1, 16_001);
        assertEquals(given, r.sequenceId(P, 1), "a writer keeps the id it has");

        r.propose(P, 3, 16_002);
        r.retire(P, 3);
        r.propose(P, 3, 16_002);
        assertNotEquals(16_002, r.sequenceId(P, 3), "the retired sequence's id stays its own");
    }

    @Test
    void proposalsOutsideTheSlotsRangeOrTheServicesOwnAreRefused() {
        SequenceRegistry r = new SequenceRegistry();
        r.propose(P, 1, WireFormat.MAX_SLOT_SEQUENCE_ID + 1);
        r.propose(P, 2, TracingService.SERVICE_SEQUENCE_ID);
        assertNotEquals(WireFormat.MAX_SLOT_SEQUENCE_ID + 1, r.sequenceId(P, 1));
        assertNotEquals(TracingService.SERVICE_SEQUENCE_ID, r.sequenceId(P, 2));
    }

    @Test
    void idsTheServiceGivesSkipAdoptedOnesAndAreAllDistinct() {
        SequenceRegistry r = new SequenceRegistry();
        r.propose(P, 100, 2);
        r.propose(P, 101, 4);
        Set<Integer> ids = new HashSet<>(Set.of(2, 4));
        for (int w = 1; w <= 20; w++) {
            assertTrue(ids.add(r.sequenceId(P, w)), "id of writer " + w + " given twice");
        }
        assertEquals(2, r.sequenceId(P, 100));
        assertEquals(4, r.sequenceId(P, 101));
    }
}
