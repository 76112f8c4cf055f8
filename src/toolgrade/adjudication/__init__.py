"""Human-in-the-loop adjudication: the routes judges decided, people's decisions on them, and
promoting accepted routes into the suite (`toolgrade adjudicate`)."""

from toolgrade.adjudication.promote import promote_routes
from toolgrade.adjudication.routes import RouteGroup, collect_groups, decide_group

__all__ = ["RouteGroup", "collect_groups", "decide_group", "promote_routes"]
