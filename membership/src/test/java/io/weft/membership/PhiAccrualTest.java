package io.weft.membership;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertTrue;

class PhiAccrualTest
{
    @Test
    void phiRisesWithSilenceAndStaysFinite()
    {
        final PhiAccrual steady = new PhiAccrual(100, 50);
        for (int i = 0; i < 100; i++)
        {
            steady.sample(100);
        }
        assertTrue(steady.phi(100) < 1, "on time: " + steady.phi(100));
        assertTrue(steady.phi(250) < FailureDetector.PHI_THRESHOLD, "a late beat: " + steady.phi(250));
        assertTrue(steady.phi(2000) >= FailureDetector.PHI_THRESHOLD, "silent for 2 s: " + steady.phi(2000));
        assertTrue(Double.isFinite(steady.phi(1_000_000)));
        assertTrue(steady.phi(400) > steady.phi(300));
    }

    @Test
    void jitterWidensTheMargin()
    {
        final PhiAccrual steady = new PhiAccrual(100, 10);
        final PhiAccrual jittery = new PhiAccrual(100, 10);
        for (int i = 0; i < 200; i++)
        {
            steady.sample(100);
            jittery.sample(i % 2 == 0 ? 20 : 180); // same mean, large spread
        }
        assertTrue(jittery.phi(300) < steady.phi(300),
            "jittery " + jittery.phi(300) + " should be less suspicious than steady " + steady.phi(300));
    }
}
