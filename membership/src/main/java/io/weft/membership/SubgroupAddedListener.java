package io.weft.membership;

import io.weft.config.SubgroupConfig;
import io.weft.smc.BatchHandler;

/**
 * Told at every member, once per subgroup added at run time ({@link Group#addSubgroup}), on the membership thread
 * before the first view that holds it opens here (and at a joiner before its first view): the place to set up what
 * the subgroup's deliveries need. Called in the order the additions were agreed, the same at every member.
 */
@FunctionalInterface
public interface SubgroupAddedListener
{
    /**
     * Sets up the added subgroup's deliveries at this member.
     *
     * @param config     the subgroup as its creator asked for it (member and sender ids, window, payload, mode).
     * @param properties what the creator attached for the application (for example a DDS topic's QoS); may be empty.
     * @return the subgroup's batch delivery callback here, or null to receive nothing from it.
     */
    BatchHandler onSubgroupAdded(SubgroupConfig config, String properties);
}
