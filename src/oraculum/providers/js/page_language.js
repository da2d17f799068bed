// The page's UI language as it announces it (`<html lang>`), "" when it does not.
() => (document.documentElement.getAttribute("lang") || "").trim()
