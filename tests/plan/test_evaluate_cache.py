"""The evaluator keeps one attachment per option and OCPU count unless its paths follow the member's caps (an iSCSI
attachment with no --paths: attachment.default_paths). Whatever it kept, the attachment it answers with is the one
the model computes for that very member: on every cloud, at sizes whose caps differ, asked in any order."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from blockfit.catalog import load_catalog
from blockfit.errors import InputError
from blockfit.plan.evaluate import Evaluator
from blockfit.plan.space import default_space
from blockfit.schema import Requirements

CATS = {c: load_catalog(c) for c in ("aws", "azure", "gcp", "oci")}
CASES = {"oci": [("VM.Standard.E4.Flex", None, None), ("VM.Standard.E4.Flex", "iscsi", None),
                 ("VM.Standard.E5.Flex", "iscsi", 2), ("VM.Standard.E3.Flex", "paravirtualized", None)],
         "aws": [("r7i.4xlarge", None, None), ("m5.12xlarge", None, None)],
         "azure": [("Standard_E16s_v5", None, None), ("Standard_E64s_v5", None, None)],
         "gcp": [("n2-standard-16", None, None), ("c3-standard-44", None, None)]}


@settings(max_examples=60, deadline=None, derandomize=True, database=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data(), cloud=st.sampled_from(sorted(CASES)))
def test_a_kept_attachment_is_the_one_the_model_gives_that_member(data: st.DataObject, cloud: str) -> None:
    cat = CATS[cloud]
    shape, attachment, paths = data.draw(st.sampled_from(CASES[cloud]), label="case")
    req = Requirements(cloud=cloud, capacity_gb=100, instance_shape=shape, attachment=attachment, paths=paths)
    try:
        space = default_space(cat, req)
    except InputError:
        return
    ev = Evaluator(cat, req, space)
    option = data.draw(st.sampled_from(space.options), label="option")
    ocpus = data.draw(st.sampled_from(space.ocpus), label="ocpus")
    sizes = data.draw(st.lists(st.sampled_from(space.sizes[option.type]), min_size=2, max_size=4), label="sizes")
    try:
        caps = ev.caps(ocpus, option.type)
    except InputError:
        return
    for size in sizes:   # the first size's attachment is kept; each later one must still be its member's own
        m = ev.member(option, size)
        if m is None:
            continue
        try:
            fresh = ev._attachment(option, m.perf, ocpus, caps)
        except InputError:
            continue
        assert ev.attachment(option, m.perf, ocpus, caps) == fresh, (option, size, ocpus)
