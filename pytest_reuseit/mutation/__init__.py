"""Mutation testing of workflows: would they notice if the site broke?

``reuseit mutate`` runs the selected workflows clean while a probe records what each touches
(``touches``), makes mutants from that, one fault each (``operators``, a registry like the op
registry), runs each mutant against a run that touched its target, with the fault injected from
the browser side through the same probe port (``inject``), and sorts the outcomes (``outcome``)
into a report (``report``). ``session`` drives the two pytest sessions; the pytest side of it is
``pytest_reuseit.mutate_plugin``. The contract is docs/mutation.md.
"""
