package io.jtrace.benchmarks.agent.flood;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import org.junit.jupiter.api.Test;

class FloodHarnessSpreadTest {
    @Test
    void oneRunIsReportedAsItsRatio() {
        assertEquals("0.84", FloodHarness.spread(List.of(0.844)));
    }

    @Test
    void severalRunsAreReportedAsTheMedianAndTheRange() {
        assertEquals("median 0.90 (0.70-1.05)", FloodHarness.spread(List.of(1.05, 0.70, 0.90)));
    }

    @Test
    void anEvenNumberOfRunsTakesTheMeanOfTheMiddleTwo() {
        assertEquals("median 0.85 (0.70-1.00)", FloodHarness.spread(List.of(1.00, 0.70, 0.80, 0.90)));
    }
}
