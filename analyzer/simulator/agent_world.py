"""The world a simulated tool-using agent works in: a small shop back office and its tools.

The tools are plain functions over a fixed database, so the same call always returns the same text;
their results are what the scripted model (`agent.py`) looks at to pick the next step. Each task
works on its own customers and orders, so no two tasks ever see the same tool result.
"""

from __future__ import annotations

import json
from typing import Any

from analyzer.errors import RerunLensError

CUSTOMERS: dict[str, dict[str, Any]] = {
    "C-101": {"name": "Ana Ruiz", "email": "ana.ruiz@example.com", "orders": ["O-5001", "O-5002"]},
    "C-202": {"name": "Ben Okafor", "email": "ben.okafor@example.com", "orders": ["O-6101"]},
    "C-303": {"name": "Dana Lee", "email": "dana.lee@example.com", "orders": ["O-8001"]},
    "C-900": {
        "name": "Chen Wei",
        "email": "chen.wei@example.com",
        "orders": [f"O-90{i:02d}" for i in range(1, 11)],
    },
}
ORDERS: dict[str, dict[str, Any]] = {
    "O-5001": {"customer": "C-101", "items": ["USB-C cable"], "total": 9.99, "status": "delivered"},
    "O-5002": {"customer": "C-101", "items": ["Lumo desk lamp"], "total": 24.5, "status": "delivered"},
    "O-6101": {"customer": "C-202", "items": ["Trail jacket"], "total": 129.0, "status": "processing"},
    "O-7002": {"customer": "C-202", "items": ["Wool socks"], "total": 14.0, "status": "processing"},
    "O-8001": {
        "customer": "C-303",
        "items": ["Standing desk"],
        "total": 399.0,
        "status": "delayed",
        "delivery": "2026-12-04",
    },
    **{
        f"O-90{i:02d}": {
            "customer": "C-900",
            "items": [f"Parcel {i}"],
            "total": 10.0 * i,
            "status": "shipped",
            "days_late": (7 if i in (3, 7) else i % 3),
        }
        for i in range(1, 11)
    },
}
PRODUCTS: dict[str, dict[str, Any]] = {
    "P-210": {"name": "Lumo desk lamp", "price": 24.5, "warranty_years": 2},
    "P-301": {"name": "View 24 monitor", "price": 149.0, "in_stock": True},
    "P-302": {"name": "View 27 monitor", "price": 139.0, "in_stock": True},
    "P-303": {"name": "Arc 32 monitor", "price": 99.0, "in_stock": False},
}
KB: dict[str, str] = {
    "refund policy": "Broken items are refunded in full within 30 days of delivery.",
    "lamp warranty": "Lumo lamps carry a 2-year warranty from the delivery date.",
}

TOOLS: dict[str, tuple[str, dict[str, str]]] = {
    "find_customer": ("Find a customer by email.", {"email": "string"}),
    "list_orders": ("List a customer's order ids and statuses.", {"customer_id": "string"}),
    "get_order": ("Read one order.", {"order_id": "string"}),
    "get_product": ("Read one product.", {"product_id": "string"}),
    "search_products": ("Search products by a word in their name.", {"query": "string"}),
    "search_kb": ("Search the help-centre articles.", {"query": "string"}),
    "refund_order": ("Refund an amount on an order.", {"order_id": "string", "amount": "number"}),
    "cancel_order": ("Cancel an order that has not shipped.", {"order_id": "string", "reason": "string"}),
    "update_address": ("Change an order's shipping address.", {"order_id": "string", "address": "string"}),
    "send_email": ("Email a customer.", {"to": "string", "subject": "string", "body": "string"}),
}
"""Tool name -> (description, parameters with their JSON types)."""


def tool_schemas() -> list[dict[str, Any]]:
    """The tools as the OpenAI chat API's `tools` parameter."""
    return [
        {
            "type": "function",
            "function": {
                "name": name,
                "description": text,
                "parameters": {
                    "type": "object",
                    "properties": {p: {"type": t} for p, t in params.items()},
                    "required": list(params),
                },
            },
        }
        for name, (text, params) in TOOLS.items()
    ]


def _result(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(", ", ": "))


def run_tool(name: str, arguments: dict[str, Any]) -> str:
    """Run one tool on the database; the result is JSON text (an `error` object for bad calls)."""
    if name not in TOOLS:
        raise RerunLensError(f"tool {name!r}: no such tool")
    a = arguments
    if name == "find_customer":
        found = [{"customer_id": k, **v} for k, v in CUSTOMERS.items() if v["email"] == a.get("email")]
        return _result(found[0] if found else {"error": "no customer with that email"})
    if name == "list_orders":
        cust = CUSTOMERS.get(str(a.get("customer_id")))
        if cust is None:
            return _result({"error": "no such customer"})
        return _result(
            {"customer_id": a["customer_id"], "open": [[o, ORDERS[o]["status"]] for o in cust["orders"]]}
        )
    if name in ("get_order", "refund_order", "cancel_order", "update_address"):
        return _order_tool(name, a)
    if name == "get_product":
        product = PRODUCTS.get(str(a.get("product_id")))
        return _result(
            {"product_id": a.get("product_id"), **product} if product else {"error": "no such product"}
        )
    if name == "search_products":
        hits = [k for k, v in PRODUCTS.items() if str(a.get("query", "")).lower() in v["name"].lower()]
        return _result({"query": a.get("query"), "product_ids": hits})
    if name == "search_kb":
        return _result({"query": a.get("query"), "article": KB.get(str(a.get("query")), "no article found")})
    return _result({"sent_to": a.get("to"), "subject": a.get("subject"), "status": "sent"})


def _order_tool(name: str, a: dict[str, Any]) -> str:
    order_id = str(a.get("order_id"))
    order = ORDERS.get(order_id)
    if order is None:
        return _result({"error": f"no order {order_id}"})
    if name == "get_order":
        return _result({"order_id": order_id, **order})
    if name == "refund_order":
        return _result({"order_id": order_id, "refunded": a.get("amount"), "status": "refunded"})
    if name == "cancel_order":
        return _result({"order_id": order_id, "status": "cancelled", "reason": a.get("reason")})
    return _result({"order_id": order_id, "ship_to": a.get("address"), "status": "address updated"})
